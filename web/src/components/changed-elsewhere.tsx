import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A form seeded from the server's copy of an object (a flag's details, a segment's) that may
 * change elsewhere while the form is open — the API, another browser — and arrive here through
 * live updates. The form follows the new copy as long as its user has not edited it; once they
 * have, their input stays, and the form offers to reload instead (never replacing unsaved input):
 *
 *   const seed = useServerSeed(fieldsOf(flag), current, apply);
 *   {seed.offer && <ChangedElsewhere what="This flag" onReload={seed.reload} />}
 *
 * `server` is the form's fields as the server has them, `current` as the form has them now,
 * `apply` puts fields into the form. Compared as JSON: build both with the same function.
 * After the user's own save the server's copy is what the form shows: nothing to offer.
 */
export interface ServerSeed {
  /** The server's newer fields, while the form holds unsaved edits. */
  offer: unknown;
  /** Replaces the form's fields with the server's (the edits are dropped). */
  reload(): void;
}

export function useServerSeed<F>(server: F, current: F, apply: (fields: F) => void): ServerSeed {
  const base = useRef(server);
  const [offer, setOffer] = useState<F | null>(null);
  const serverText = JSON.stringify(server);
  useEffect(() => {
    if (serverText === JSON.stringify(base.current)) return;
    const currentText = JSON.stringify(current);
    const untouched = currentText === JSON.stringify(base.current);
    base.current = server;
    if (untouched || currentText === serverText) {
      if (currentText !== serverText) apply(server);
      setOffer(null);
    } else setOffer(server);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the server's copy, by value
  }, [serverText]);
  useEffect(() => {
    // Edits undone by hand, or the same change saved here: nothing left to offer.
    if (offer !== null && JSON.stringify(current) === JSON.stringify(offer)) setOffer(null);
  });
  return {
    offer,
    reload() {
      if (offer === null) return;
      apply(offer);
      setOffer(null);
    },
  };
}

/** The offer: "<what> changed elsewhere — Reload", with what reloading costs. */
export function ChangedElsewhere({ what, onReload }: { what: string; onReload: () => void }) {
  return (
    <div class="banner banner-changed" role="status" data-testid="changed-elsewhere">
      <span>
        <strong>{what} changed elsewhere.</strong> Your unsaved edits are kept; reloading shows the new version and drops them.
      </span>
      <button type="button" class="button button-small" onClick={onReload}>
        Reload
      </button>
    </div>
  );
}
