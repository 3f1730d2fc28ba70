import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError } from '../api/errors';
import { getToken, handleUnauthorized, setToken } from '../api/http';
import { meta as metaApi, type MetaInfo } from '../api/meta';

/**
 * What the whole dashboard needs to know before any screen: the instance's /meta/info
 * (authentication required? read-only?) and whether the browser holds a token the server
 * accepts. `status` is `login` when the server answered 401: the app then shows the login
 * screen and, once a token is accepted, goes back to where the user was.
 */
export type SessionStatus = 'loading' | 'ready' | 'login' | 'error';

export interface Session {
  status: SessionStatus;
  meta: MetaInfo | null;
  /** Why /meta/info could not be read (status `error`). */
  error: ApiError | null;
  /** True when the instance refuses writes (read-only or Git-backed storage). */
  readOnly: boolean;
  hasToken: boolean;
  /** Keeps an accepted token for this browser session and reloads what the dashboard knows. */
  login(token: string): Promise<void>;
  /** Forgets the token in this browser (the token itself stays valid: it may be shared). */
  logout(): void;
  /** Where to go after logging in: the place a 401 interrupted. */
  returnTo: string | null;
  setReturnTo(path: string | null): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside <SessionProvider>');
  return session;
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [status, setStatus] = useState<SessionStatus>('loading');
  const [meta, setMeta] = useState<MetaInfo | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [hasToken, setHasToken] = useState(getToken() !== null);
  const [returnTo, setReturnTo] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setMeta(await metaApi.info({ redirectOn401: false }));
      setError(null);
      setStatus('ready');
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        setToken(null);
        setHasToken(false);
        setStatus('login');
      } else {
        setError(err instanceof ApiError ? err : new ApiError(0, 0, String(err), []));
        setStatus('error');
      }
    }
  }, []);

  useEffect(() => {
    // Any API call answered 401 (token expired or deleted meanwhile) lands here.
    handleUnauthorized(() => {
      setHasToken(false);
      setStatus('login');
    });
    void load();
  }, [load]);

  const session = useMemo<Session>(
    () => ({
      status,
      meta,
      error,
      readOnly: meta !== null && (meta.storage.readOnly === true || meta.storage.type !== 'database'),
      hasToken,
      async login(token: string) {
        setToken(token);
        setHasToken(true);
        await load();
      },
      logout() {
        setToken(null);
        setHasToken(false);
        setStatus(meta?.authentication.required ? 'login' : 'ready');
      },
      returnTo,
      setReturnTo,
    }),
    [status, meta, error, hasToken, returnTo, load],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
