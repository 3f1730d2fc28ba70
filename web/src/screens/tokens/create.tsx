import { useRef, useState } from 'preact/hooks';
import { formErrors } from '../../api/errors';
import { useMutation } from '../../api/hooks';
import { TOKEN_METADATA, tokens as api, type CreatedToken, type TokenInput } from '../../api/tokens';
import { Field, FormError, TextAreaField, TextField } from '../../components/field';
import { timeZoneChoice } from '../../lib/format';
import { useNamespaces } from '../../session/namespaces';
import { FormDialog } from '../../components/form-dialog';
import { NamespaceOptions } from '../../components/namespace-switcher';

const FIELDS = ['name', 'description', 'expiresAt', 'namespaceKey'] as const;

/**
 * New token: name, description, an optional expiry date and an optional namespace scope. The
 * answer holds the only copy of the token there will ever be (the server keeps a hash): the
 * dialog shows it once with a copy button, and closing the dialog removes it from the page.
 */
export function CreateTokenDialog({ open, onCreated, onClose }: { open: boolean; onCreated: () => void; onClose: () => void }) {
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const close = () => {
    setCreated(null);
    onClose();
  };
  return (
    <FormDialog open={open} title={created ? 'Token created' : 'New API token'} onClose={close}>
      {created ? (
        <TokenReveal created={created} onDone={close} />
      ) : (
        <TokenForm
          onCancel={close}
          onCreated={(c) => {
            setCreated(c);
            onCreated();
          }}
        />
      )}
    </FormDialog>
  );
}

/**
 * `YYYY-MM-DD` from a date input → the end of that day, as RFC 3339, in the zone the dashboard
 * shows times in (the reader's, or UTC: Settings → General).
 */
export function endOfDay(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return date;
  if (timeZoneChoice() === 'utc') return `${date}T23:59:59Z`;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59).toISOString().replace(/\.000Z$/, 'Z');
}

function TokenForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (created: CreatedToken) => void }) {
  const { list: namespaces } = useNamespaces();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  const [namespaceKey, setNamespaceKey] = useState('');
  const create = useMutation((input: TokenInput) => api.create(input));
  const errors = formErrors(create.error, FIELDS);

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run({ name, description, expiresAt: expires === '' ? '' : endOfDay(expires), namespaceKey });
    if (created) onCreated(created);
  };

  return (
    <form class="form" onSubmit={submit} noValidate aria-label="New API token">
      <FormError message={errors.form} />
      <TextField label="Name" name="name" required value={name} error={errors.fields.name} hint="Who or what uses it (e.g. checkout-service)." input={{ autoComplete: 'off' }} onValue={setName} />
      <TextAreaField label="Description" name="description" rows={2} value={description} error={errors.fields.description} onValue={setDescription} />
      <Field label="Expires on" name="expiresAt" error={errors.fields.expiresAt} hint={`The token stops working at the end of this day (${timeZoneChoice() === 'utc' ? 'UTC' : 'your time zone'}). Leave empty for a token that does not expire.`}>
        {(a11y) => <input {...a11y} type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Namespace scope"
        name="namespaceKey"
        error={errors.fields.namespaceKey}
        hint="A scoped token may use only that namespace's flags and evaluations; it cannot list namespaces or log in to this dashboard."
      >
        {(a11y) => (
          <select {...a11y} value={namespaceKey} onChange={(e) => setNamespaceKey(e.currentTarget.value)}>
            <option value="">All namespaces</option>
            <NamespaceOptions list={namespaces} />
          </select>
        )}
      </Field>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={onCancel} disabled={create.busy}>
          Cancel
        </button>
        <button type="submit" class="button button-primary" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

/** The token, once: select-all on focus, a copy button, and a plain warning. */
function TokenReveal({ created, onDone }: { created: CreatedToken; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const scope = created.authentication.metadata[TOKEN_METADATA.namespace];
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.clientToken);
      setCopied('yes');
    } catch {
      // No clipboard access (permissions, an insecure origin): select it for Ctrl+C instead.
      input.current?.select();
      setCopied('failed');
    }
  };
  return (
    <div class="form token-reveal">
      <p class="token-warning" role="alert">
        <strong>Copy this token now.</strong> It is shown only this once: Pennon keeps only a hash of it and cannot show it again. Anyone holding it can use the API
        {scope ? ` in namespace ${scope}` : ''}.
      </p>
      <Field label="Client token" name="clientToken" hint="Send it as Authorization: Bearer <token>.">
        {(a11y) => (
          <div class="token-secret">
            <input {...a11y} ref={input} type="text" class="mono" readOnly value={created.clientToken} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" class="button" onClick={copy}>
              Copy
            </button>
          </div>
        )}
      </Field>
      <p class="field-hint" aria-live="polite">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: the token is selected, press Ctrl+C (⌘C).' : ''}
      </p>
      <div class="dialog-actions">
        <button type="button" class="button button-primary" onClick={onDone}>
          Done, I have copied it
        </button>
      </div>
    </div>
  );
}
