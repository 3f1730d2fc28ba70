import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { auth, type Authentication } from '../api/auth';
import { ApiError } from '../api/errors';
import { getToken, handleUnauthorized, setToken } from '../api/http';
import { meta as metaApi, type MetaInfo } from '../api/meta';
import { identityOf, type Identity } from './identity';
import { ALL_GRANTS, parseGrants, type Grants } from './permissions';

/**
 * What the whole dashboard needs to know before any screen: the instance's /meta/info
 * (authentication required? read-only?) and, when authentication is required, who the browser
 * is signed in as (`/auth/v1/self`: by a pasted client token, or by the session cookie an OIDC
 * or GitHub sign-in left, which the page cannot see — a 200 from self is how it knows). `status`
 * is `login` when the server answered 401: the app then shows the sign-in screen and, once
 * signed in, goes back to where the user was.
 */
export type SessionStatus = 'loading' | 'ready' | 'login' | 'error';

export interface Session {
  status: SessionStatus;
  /** Null until read, or when the caller's role may not read it (the dashboard works without). */
  meta: MetaInfo | null;
  /** Why /meta/info could not be read (status `error`). */
  error: ApiError | null;
  /** True when the instance refuses writes (read-only or Git-backed storage). */
  readOnly: boolean;
  /** A pasted client token is in use (else, if signed in, the session cookie). */
  hasToken: boolean;
  /** The caller's authentication; null when authentication is not required (or before sign-in). */
  self: Authentication | null;
  /** Who that is, in words; null when nobody is signed in. */
  identity: Identity | null;
  /** What the caller may do (session/permissions.ts); everything when authentication is off. */
  grants: Grants;
  /** Keeps an accepted token for this browser session and reloads what the dashboard knows. */
  login(token: string): Promise<void>;
  /**
   * A session signed in through a provider is ended on the server (`PUT /auth/v1/self/expire`
   * expires it and clears its cookies); a pasted client token is only forgotten here — it may be
   * an application's too, and is revoked on the Tokens screen. Then the sign-in screen shows.
   * Throws (still signed in) when the server refused for another reason than an authentication
   * already gone.
   */
  logout(): Promise<void>;
  /** Where to go after signing in: the place a 401 interrupted. */
  returnTo: string | null;
  setReturnTo(path: string | null): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

/**
 * A sign-in through a provider leaves the page (to the provider, back to `/`): where the user
 * was is kept in sessionStorage meanwhile, and taken back once.
 */
const RETURN_KEY = 'pennon.returnTo';

export function rememberReturnTo(path: string | null): void {
  try {
    if (path === null) sessionStorage.removeItem(RETURN_KEY);
    else sessionStorage.setItem(RETURN_KEY, path);
  } catch {
    // Refused: the user lands on the flags after signing in.
  }
}

function takeReturnTo(): string | null {
  try {
    const path = sessionStorage.getItem(RETURN_KEY);
    sessionStorage.removeItem(RETURN_KEY);
    return path;
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [status, setStatus] = useState<SessionStatus>('loading');
  const [meta, setMeta] = useState<MetaInfo | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [hasToken, setHasToken] = useState(getToken() !== null);
  const [self, setSelf] = useState<Authentication | null>(null);
  const [returnTo, setReturnTo] = useState<string | null>(takeReturnTo);

  const signedOut = useCallback(() => {
    setToken(null);
    setHasToken(false);
    setSelf(null);
    setStatus('login');
  }, []);

  const load = useCallback(async () => {
    try {
      const info = await metaApi.info({ redirectOn401: false }).catch((err: unknown) => {
        // Refused (403) to a caller whose roles are all per-namespace: it is signed in all the same.
        if (err instanceof ApiError && err.status === 403) return null;
        throw err;
      });
      // Without required authentication there is nobody to ask about (self answers 401).
      const who = info === null || info.authentication.required ? await auth.self({ redirectOn401: false }) : null;
      setMeta(info);
      setSelf(who);
      setError(null);
      setStatus('ready');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) signedOut();
      else {
        setError(err instanceof ApiError ? err : new ApiError(0, 0, String(err), []));
        setStatus('error');
      }
    }
  }, [signedOut]);

  useEffect(() => {
    // Any API call answered 401 (token expired or deleted meanwhile, session over) lands here.
    handleUnauthorized(signedOut);
    void load();
  }, [load, signedOut]);

  const session = useMemo<Session>(
    () => ({
      status,
      meta,
      error,
      readOnly: meta !== null && (meta.storage.readOnly === true || meta.storage.type !== 'database'),
      hasToken,
      self,
      identity: self ? identityOf(self) : null,
      grants: self ? parseGrants(self.metadata) : ALL_GRANTS,
      async login(token: string) {
        setToken(token);
        setHasToken(true);
        await load();
      },
      async logout() {
        if (!hasToken && self !== null) {
          try {
            await auth.expireSelf({ redirectOn401: false });
          } catch (err) {
            // Already expired or deleted: signed out all the same.
            if (!(err instanceof ApiError && err.status === 401)) throw err;
          }
        }
        setToken(null);
        setHasToken(false);
        setSelf(null);
        setStatus(meta?.authentication.required === false ? 'ready' : 'login');
      },
      returnTo,
      setReturnTo,
    }),
    [status, meta, error, hasToken, self, returnTo, load],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
