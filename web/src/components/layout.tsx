import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { namespaceInPath } from '../routes/paths';
import type { NavEntry } from '../routes/types';
import { useNamespaces } from '../session/namespaces';
import { can, roleIn, roleLabel } from '../session/permissions';
import { useSession } from '../session/session';
import { CommandPalette } from './command-palette';
import { LiveStatusBadge } from './live-status';
import { NamespaceSwitcher } from './namespace-switcher';
import { ThemeToggle } from './theme';
import { ToastRegion } from './toast';
import { UserMenu } from './user-menu';

/**
 * The frame around every screen but login: the header (name, namespace switcher, live updates'
 * state, theme, who is signed in and log out), the navigation built from the screens' `nav`
 * entries (those the caller's role may use), the read-only and role banners, and the
 * screen itself in <main>. A "skip to content" link comes first for keyboard users. In a narrow
 * window the header keeps one row: the name, the switcher's label and the buttons' words give
 * way to icons (their names stay for assistive technology), so nothing is pushed off screen.
 * The header stays at the top as the page scrolls and holds the toasts (components/toast.tsx)
 * in a line of their own, so a confirmation is always in sight and never over a control.
 */
export function Layout({ nav, children }: { nav: NavEntry[]; children: ComponentChildren }) {
  const { current } = useNamespaces();
  const [location] = useLocation();
  const session = useSession();
  const header = useRef<HTMLElement>(null);
  useKeepClearOf(header);
  const groups: { title: string; entries: NavEntry[] }[] = [
    { title: 'Namespace', entries: nav.filter((n) => n.group === 'namespace') },
    { title: 'Settings', entries: nav.filter((n) => n.group === 'settings' && (n.needs === undefined || can(session.grants, n.needs))) },
  ];
  return (
    <div class="shell">
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="topbar" ref={header}>
        <div class="topbar-row">
          <Link href="/" class="brand">
            <span class="brand-mark" aria-hidden="true" />
            <span class="brand-name">Pennon</span>
          </Link>
          <NamespaceSwitcher />
          <div class="topbar-end">
            <LiveStatusBadge />
            <CommandPalette />
            {session.meta && <span class="version">v{session.meta.version}</span>}
            <ThemeToggle />
            <UserMenu />
          </div>
        </div>
        <ToastRegion />
      </header>
      <nav class="sidenav" aria-label="Main">
        {groups.map((g) => (
          <div class="nav-group" key={g.title}>
            <p class="nav-title">{g.title}</p>
            <ul>
              {g.entries.map((entry) => {
                const href = entry.href(current);
                const active = location === href || location.startsWith(`${href}/`);
                return (
                  <li key={entry.label}>
                    <Link href={href} class={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
                      {entry.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        <ReadOnlyBanner />
        <RoleBanner />
        {children}
      </main>
    </div>
  );
}

/**
 * What the browser scrolls into view (a focused field, a link's target) stops below the sticky
 * header, whatever its height (it grows while a toast shows): the page's scroll-padding follows it
 * (set through the CSSOM, which the CSP allows, unlike a style attribute).
 */
function useKeepClearOf(header: { current: HTMLElement | null }) {
  useLayoutEffect(() => {
    const el = header.current;
    if (!el) return;
    const root = document.documentElement;
    const follow = () => root.style.setProperty('scroll-padding-top', `${el.offsetHeight + 8}px`);
    follow();
    const resized = new ResizeObserver(follow);
    resized.observe(el);
    return () => {
      resized.disconnect();
      root.style.removeProperty('scroll-padding-top');
    };
  }, []);
}

/** In a hash-routed app `#main` would be read as a route: move focus instead. */
function skipToMain(event: Event) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}

/** Says, on every screen, that this instance refuses changes (`/meta/info` storage). */
export function ReadOnlyBanner() {
  const { meta, readOnly } = useSession();
  if (!meta || !readOnly) return null;
  const why = meta.storage.type !== 'database' ? `its flags come from ${meta.storage.type} storage` : 'it is configured with storage.read_only';
  return (
    <div class="banner banner-readonly" role="note" data-testid="read-only-banner">
      <strong>Read-only.</strong> This instance refuses changes: {why}. You can browse and evaluate, not edit.
    </div>
  );
}

/**
 * Says, on a namespace's screens, that the caller's role there allows no changes (the controls
 * for them are hidden or disabled): a viewer, or someone with no role in it at all.
 */
export function RoleBanner() {
  const { grants, readOnly } = useSession();
  const { current } = useNamespaces();
  const [location] = useLocation();
  if (readOnly || namespaceInPath(location) === null || can(grants, 'write', current)) return null;
  const role = roleIn(grants, current);
  return (
    <div class="banner banner-role" role="note" data-testid="role-banner">
      {role === null ? (
        <>
          <strong>No access.</strong> You have no role in namespace {current}: the server will refuse to show or change it.
        </>
      ) : (
        <>
          <strong>{roleLabel(role)}.</strong> In namespace {current} you can browse and evaluate, not change anything (that needs the editor role).
        </>
      )}
    </div>
  );
}
