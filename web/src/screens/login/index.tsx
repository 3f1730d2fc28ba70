import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { auth } from '../../api/auth';
import { ApiError } from '../../api/errors';
import { relative } from '../../api/http';
import { Field, FormError } from '../../components/field';
import { paths } from '../../routes/paths';
import { signInOptions, type SignInOption } from '../../session/identity';
import { rememberReturnTo, useSession } from '../../session/session';

/**
 * The sign-in screen, shown when the server requires authentication and the browser is not
 * signed in. First a "Sign in with …" per browser sign-in the server offers (`GET
 * /auth/v1/method`: each OIDC provider, GitHub): following one leaves for the provider, which
 * sends the browser back to `/` with a session cookie. Below, a client token can be pasted: it
 * is checked against /auth/v1/self before it is kept, and kept in sessionStorage only.
 */
export function LoginScreen() {
  const session = useSession();
  const [, navigate] = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const options = useSignInOptions();

  useEffect(() => {
    document.title = 'Sign in · Pennon';
  }, []);
  useEffect(() => {
    // Nothing to sign in to (authentication off, or already signed in): go on.
    if (session.status === 'ready') navigate(session.returnTo ?? paths.home, { replace: true });
  }, [session.status]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setFormError(null);
    const candidate = token.trim();
    if (candidate === '') {
      setError('Enter a client token.');
      return;
    }
    setBusy(true);
    try {
      await auth.self({ token: candidate, redirectOn401: false });
      await session.login(candidate);
      session.setReturnTo(null);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError(`This token was not accepted (${err.message}).`);
      else setFormError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login" id="main">
      <div class="login-card">
        <h1>
          <span class="brand-mark" aria-hidden="true" /> Pennon
        </h1>
        <p class="muted">This server requires you to sign in.</p>
        <div class="sign-in-options" aria-busy={options === null ? 'true' : undefined}>
          {options?.map((o) => (
            // A link (the browser leaves for the provider), remembering where to come back to.
            <a key={o.url} class="button sign-in-option" href={relative(o.url)} onClick={() => rememberReturnTo(session.returnTo)}>
              {o.label}
            </a>
          ))}
        </div>
        {options !== null && options.length > 0 && (
          <p class="login-divider">
            <span>or with a client token</span>
          </p>
        )}
        <form class="form" onSubmit={submit} noValidate aria-label="Sign in with a client token">
          <p class="muted">Paste a client token (from <code>pennon token create</code> or the bootstrap token in the server's log).</p>
          <FormError message={formError} />
          <Field label="Client token" name="token" error={error}>
            {(a11y) => <input {...a11y} type="password" autoComplete="off" autoFocus value={token} onInput={(e) => setToken(e.currentTarget.value)} />}
          </Field>
          <div class="form-actions">
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? 'Checking…' : 'Log in'}
            </button>
          </div>
        </form>
      </div>
    </main>
  );
}

/** The server's browser sign-ins; null while asking; none when it cannot say (the token form stays). */
function useSignInOptions(): SignInOption[] | null {
  const [options, setOptions] = useState<SignInOption[] | null>(null);
  useEffect(() => {
    let live = true;
    auth.methods().then(
      (methods) => live && setOptions(signInOptions(methods)),
      () => live && setOptions([]),
    );
    return () => {
      live = false;
    };
  }, []);
  return options;
}
