import type { FunctionComponent } from 'preact';
import type { Action } from '../session/permissions';

/**
 * How a screen plugs into the dashboard: its folder's index.ts exports one `Screen`, and
 * routes/index.ts lists it. Paths are wouter patterns (`/namespaces/:ns/flags/:flagKey`);
 * more specific paths go first within a screen (`…/flags/new` before `…/flags/:flagKey`).
 */
export interface ScreenRoute {
  path: string;
  component: FunctionComponent;
}

export interface NavEntry {
  label: string;
  /** `namespace` entries follow the namespace switcher; `settings` ones do not. */
  group: 'namespace' | 'settings';
  /** The link, given the current namespace. */
  href: (ns: string) => string;
  /** Shown only to callers who may do this everywhere (session/permissions.ts); always when absent. */
  needs?: Action;
}

export interface Screen {
  routes: ScreenRoute[];
  nav?: NavEntry;
}
