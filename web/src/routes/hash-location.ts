import { useHashLocation } from 'wouter-preact/use-hash-location';

/**
 * Hash routing with a query inside the hash: `#/namespaces/default/console?flag=checkout`.
 * wouter's own hash hook hands routes the whole hash (so `…/console?flag=x` matches no route)
 * and its navigate moves a query before the `#` (`/?flag=x#/…`), where it outlives the screen
 * it was for. Here routes see the path alone, `useSearch()` reads the hash's query, and
 * navigating keeps the query in the hash — so a link copied from the address bar opens the
 * same screen with the same choices.
 */
const HASH_PREFIX = /^#?\/?/;

function split(location: string): [string, string] {
  const at = location.indexOf('?');
  return at === -1 ? [location, ''] : [location.slice(0, at), location.slice(at + 1)];
}

export function navigate(to: string, { state = null, replace = false }: { state?: unknown; replace?: boolean } = {}): void {
  const oldURL = window.location.href;
  const url = new URL(oldURL);
  url.hash = `/${to.replace(HASH_PREFIX, '')}`;
  history[replace ? 'replaceState' : 'pushState'](state, '', url.href);
  dispatchEvent(new HashChangeEvent('hashchange', { oldURL, newURL: url.href }));
}

/** The location hook for `<Router hook={useHashPath}>`: the hash's path, without its query. */
export function useHashPath(): [string, typeof navigate] {
  const [location] = useHashLocation();
  return [split(location)[0], navigate];
}

/** The hash's query, without `?` (what wouter's `useSearch()` returns under this router). */
export function useHashSearch(): string {
  const [location] = useHashLocation();
  return split(location)[1];
}

useHashPath.searchHook = useHashSearch;
useHashPath.hrefs = (href: string) => `#${href}`;
