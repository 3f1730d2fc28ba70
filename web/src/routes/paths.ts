import { useParams } from 'wouter-preact';

/**
 * Every place in the dashboard, as a hash path (`#/namespaces/default/flags`). Build links with
 * these, never by hand, so a path changes in one place. Keys are encoded (a key may hold a
 * comma); read them back with `useRouteParam`.
 */
export const DEFAULT_NAMESPACE = 'default';

const seg = (value: string) => encodeURIComponent(value);

export const paths = {
  home: '/',
  login: '/login',
  flags: (ns: string) => `/namespaces/${seg(ns)}/flags`,
  newFlag: (ns: string) => `/namespaces/${seg(ns)}/flags/new`,
  flag: (ns: string, key: string) => `/namespaces/${seg(ns)}/flags/${seg(key)}`,
  /** A flag's page with one event of its History picked out (`…/flags/<key>?event=<id>`: the console's "last change"). */
  flagEvent: (ns: string, key: string, eventId: string) => `/namespaces/${seg(ns)}/flags/${seg(key)}?event=${seg(eventId)}`,
  segments: (ns: string) => `/namespaces/${seg(ns)}/segments`,
  newSegment: (ns: string) => `/namespaces/${seg(ns)}/segments/new`,
  segment: (ns: string, key: string) => `/namespaces/${seg(ns)}/segments/${seg(key)}`,
  /** With a flag: the console opens with it chosen (`…/console?flag=<key>`, "Evaluate in console"). */
  console: (ns: string, flagKey?: string) => `/namespaces/${seg(ns)}/console${flagKey ? `?flag=${seg(flagKey)}` : ''}`,
  /** The namespace's audit trail, filtered as the query says (`…/audit?type=flag,variant&actor=alice`). */
  audit: (ns: string, filter: Record<string, string> = {}) => {
    const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== '')).toString();
    return `/namespaces/${seg(ns)}/audit${query === '' ? '' : `?${query}`}`;
  },
  /** Onboarding (Flipt's onboarding/support pages): the steps, and how applications call Pennon. */
  gettingStarted: (ns: string) => `/namespaces/${seg(ns)}/getting-started`,
  namespaces: '/settings/namespaces',
  newNamespace: '/settings/namespaces/new',
  namespace: (key: string) => `/settings/namespaces/${seg(key)}`,
  tokens: '/settings/tokens',
  /** Settings → General: theme, timezone, log out. */
  settings: '/settings/general',
};

const NAMESPACED = /^\/namespaces\/([^/]+)(\/[^/]*)?/;

/** The namespace a location is in (`/namespaces/<key>/…`), or null for screens without one. */
export function namespaceInPath(location: string): string | null {
  const match = NAMESPACED.exec(location);
  return match ? safeDecode(match[1]) : null;
}

/**
 * The same section in another namespace: from a flag's page in `a` to the flags list in `b`
 * (the flag itself may not exist there). Screens without a namespace stay where they are.
 */
export function switchNamespace(location: string, ns: string): string {
  const match = NAMESPACED.exec(location);
  if (!match) return location;
  return `/namespaces/${seg(ns)}${match[2] ?? '/flags'}`;
}

/** A route parameter, decoded (`/flags/:flagKey` → the flag's key). */
export function useRouteParam(name: string): string {
  const params = useParams<Record<string, string | undefined>>();
  return safeDecode(params[name] ?? '');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
