import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { useNamespaces } from '../session/namespaces';
import { roleIn, roleLabel, widerIn } from '../session/permissions';
import { useSession } from '../session/session';
import { useToast } from './toast';

/**
 * Who is signed in, in the header: initials, name and role in the current namespace on the
 * button; opened, the details — email or login, how they signed in, their role here and where
 * they have more — and "Log out". Shown only when the server authenticates the caller. The
 * identity's picture is not shown: the dashboard's CSP loads images from this origin only.
 */
export function UserMenu() {
  const session = useSession();
  const { current } = useNamespaces();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  useEffect(() => {
    if (!open) return;
    const outside = (event: PointerEvent) => {
      if (box.current && !box.current.contains(event.target as Node)) setOpen(false);
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  const identity = session.identity;
  if (!identity) return null;
  const { grants } = session;
  const role = roleIn(grants, current);
  const elsewhere = widerIn(grants).filter((g) => g.namespace !== current);

  const logout = async () => {
    setBusy(true);
    try {
      await session.logout();
    } catch (err) {
      toast.error(`Could not log out: ${err instanceof Error ? err.message : String(err)}`);
      setBusy(false);
    }
  };

  return (
    <div class="user-menu" ref={box}>
      <button
        ref={button}
        type="button"
        class="button button-quiet topbar-button user-button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={`Account: ${identity.name}, ${roleLabel(role).toLowerCase()}`}
        onClick={() => setOpen(!open)}
      >
        <span class="avatar" aria-hidden="true">
          {identity.initials}
        </span>
        <span class="topbar-words user-name">{identity.name}</span>
        <span class="topbar-words role-badge" data-role={role ?? 'none'}>
          {roleLabel(role)}
        </span>
      </button>
      {open && (
        <div class="user-panel" id={panelId} role="region" aria-label="Account">
          <p class="user-panel-name">{identity.name}</p>
          {identity.detail && <p class="muted user-panel-detail">{identity.detail}</p>}
          <dl class="user-facts">
            <dt>Signed in with</dt>
            <dd data-testid="user-method">{identity.method}</dd>
            <dt>Role</dt>
            <dd data-testid="user-role">
              {grants.stated ? `${roleLabel(role)} in namespace ${current}` : 'Admin (this server sets no roles)'}
              {grants.stated && grants.global !== null && grants.global !== role && `; ${roleLabel(grants.global)} in every namespace`}
            </dd>
            {elsewhere.length > 0 && (
              <>
                <dt>Also</dt>
                <dd>{elsewhere.map((g) => `${roleLabel(g.role)} in ${g.namespace}`).join(', ')}</dd>
              </>
            )}
          </dl>
          {session.hasToken && <p class="muted user-panel-note">Logging out forgets this client token here; it stays valid elsewhere until revoked under API tokens.</p>}
          <button type="button" class="button button-danger-quiet" onClick={logout} disabled={busy}>
            {busy ? 'Logging out…' : 'Log out'}
          </button>
        </div>
      )}
    </div>
  );
}
