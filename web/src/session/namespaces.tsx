import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { useQuery } from '../api/hooks';
import { namespaces as namespacesApi, type Namespace } from '../api/namespaces';
import { readPreference, writePreference } from '../lib/storage';
import { DEFAULT_NAMESPACE, namespaceInPath } from '../routes/paths';

/**
 * The namespaces the switcher offers, and the current one. The current namespace is the one in
 * the URL (`#/namespaces/<key>/…`) so that deep links and reloads keep it; on screens without
 * one in their path (settings) it is the last one used, remembered across visits.
 */
export interface Namespaces {
  list: Namespace[];
  loading: boolean;
  error: unknown;
  current: string;
  /** Call after creating, renaming or deleting a namespace. */
  reload(): void;
  /** Makes `ns` current (remembered); namespaced screens move there through their URL instead. */
  choose(ns: string): void;
}

const NamespacesContext = createContext<Namespaces | null>(null);

export function useNamespaces(): Namespaces {
  const value = useContext(NamespacesContext);
  if (!value) throw new Error('useNamespaces outside <NamespacesProvider>');
  return value;
}

/** The namespace the current screen acts on. */
export function useCurrentNamespace(): string {
  return useNamespaces().current;
}

export function NamespacesProvider({ children }: { children: ComponentChildren }) {
  const [location] = useLocation();
  const query = useQuery(() => namespacesApi.list(), []);
  const [chosen, setChosen] = useState(() => readPreference('namespace') ?? DEFAULT_NAMESPACE);
  const inPath = namespaceInPath(location);
  useEffect(() => {
    if (inPath !== null) {
      writePreference('namespace', inPath);
      setChosen(inPath);
    }
  }, [inPath]);
  const choose = (ns: string) => {
    writePreference('namespace', ns);
    setChosen(ns);
  };
  const value: Namespaces = { list: query.data ?? [], loading: query.loading, error: query.error, current: inPath ?? chosen, reload: query.reload, choose };
  return <NamespacesContext.Provider value={value}>{children}</NamespacesContext.Provider>;
}
