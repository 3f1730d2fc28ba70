import { useState } from 'preact/hooks';
import { keyFromName } from '../lib/keys';
import { TextField } from './field';

/**
 * The name and key of a namespace, flag or segment. On a new one the key follows the name
 * (lib/keys.ts) until the user edits the key; from then on the name no longer rewrites it, even
 * if the key is emptied. An existing one's key cannot change (Flipt has no rename).
 *
 *   const nameKey = useKeyFromName(existing);
 *   <NameKeyFields nameKey={nameKey} errors={errors.fields} keyHint="…" keyFixed={existing !== undefined} />
 */
export interface NameAndKey {
  name: string;
  key: string;
  setName(name: string): void;
  setKey(key: string): void;
}

export function useKeyFromName(existing?: { name: string; key: string }): NameAndKey {
  const [name, setName] = useState(existing?.name ?? '');
  const [key, setKey] = useState(existing?.key ?? '');
  const [keyTouched, setKeyTouched] = useState(existing !== undefined);
  return {
    name,
    key,
    setName: (value) => {
      setName(value);
      if (!keyTouched) setKey(keyFromName(value));
    },
    setKey: (value) => {
      setKey(value);
      setKeyTouched(true);
    },
  };
}

export function NameKeyFields({
  nameKey,
  errors,
  keyHint,
  keyFixed,
  readOnly,
}: {
  nameKey: NameAndKey;
  /** The API's messages about `name` and `key` (formErrors(…).fields). */
  errors: { name?: string; key?: string };
  keyHint: string;
  /** An existing resource: its key is shown read-only. */
  keyFixed?: boolean;
  /** Both fields read-only (a read-only instance). */
  readOnly?: boolean;
}) {
  return (
    <>
      <TextField label="Name" name="name" required value={nameKey.name} error={errors.name} input={{ readOnly, autoComplete: 'off' }} onValue={nameKey.setName} />
      <TextField
        label="Key"
        name="key"
        required
        value={nameKey.key}
        error={errors.key}
        hint={keyHint}
        input={{ readOnly: keyFixed || readOnly, class: 'mono', autoComplete: 'off', spellcheck: false }}
        onValue={nameKey.setKey}
      />
    </>
  );
}
