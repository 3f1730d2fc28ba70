import { useId } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { switchNamespace } from '../routes/paths';
import { useNamespaces } from '../session/namespaces';

/**
 * Picks the namespace every namespaced screen acts on. On a namespaced screen it moves to the
 * same section of the other namespace (the URL carries the namespace, so deep links keep it);
 * elsewhere it only changes which namespace the next namespaced screen opens in.
 */
export function NamespaceSwitcher() {
  const { list, current, loading, choose } = useNamespaces();
  const [location, navigate] = useLocation();
  const id = useId();
  // The current namespace may be missing from the list (deleted, or a typo in a link): still show it.
  const options = list.some((n) => n.key === current) ? list : [{ key: current, name: current }, ...list];
  return (
    <div class="switcher">
      <label class="switcher-label" for={id}>
        Namespace
      </label>
      <select
        id={id}
        value={current}
        disabled={loading && list.length === 0}
        onChange={(e) => {
          const ns = e.currentTarget.value;
          choose(ns);
          const target = switchNamespace(location, ns);
          if (target !== location) navigate(target);
        }}
      >
        <NamespaceOptions list={options} />
      </select>
    </div>
  );
}

/** A namespace picker's options: "Name (key)", or the key alone when the name is the key. */
export function NamespaceOptions({ list }: { list: { key: string; name: string }[] }) {
  return (
    <>
      {list.map((n) => (
        <option key={n.key} value={n.key}>
          {n.name === n.key ? n.key : `${n.name} (${n.key})`}
        </option>
      ))}
    </>
  );
}
