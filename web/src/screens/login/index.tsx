import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { auth } from '../../api/auth';
import { ApiError } from '../../api/errors';
import { Field, FormError } from '../../components/field';
import { paths } from '../../routes/paths';
import { useSession } from '../../session/session';

/**
 * Asks for a client token when the server requires authentication (Flipt's token method; the
 * dashboard has no session login of its own). The token is checked against /auth/v1/self
 * before it is kept, and kept in sessionStorage only: closing the tab forgets it.
 */
export function LoginScreen() {
  const session = useSession();
  const [, navigate] = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Log in · Pennon';
  }, []);
  useEffect(() => {
    // Nothing to log in to (authentication off, or a token already accepted): go on.
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
      <form class="login-card form" onSubmit={submit} noValidate>
        <h1>
          <span class="brand-mark" aria-hidden="true" /> Pennon
        </h1>
        <p class="muted">This server requires authentication. Paste a client token (from <code>pennon token create</code> or the bootstrap token in the server's log).</p>
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
    </main>
  );
}
