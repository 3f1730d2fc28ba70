import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Page } from '../../components/page';
import { chooseTheme, useTheme, type Theme } from '../../components/theme';
import { useToast } from '../../components/toast';
import { chooseTimeZone, formatDate, timeZoneChoice, type TimeZoneChoice } from '../../lib/format';
import { useSession } from '../../session/session';

/**
 * Settings → General (Flipt's counterpart): the theme, the time zone displayed times use, and
 * the session — who is signed in, and logging out, which ends a provider's session on the server
 * as Flipt's UI does (`PUT /auth/v1/self/expire`) and forgets a pasted token here only
 * (docs/DECISIONS.md, "Dashboard"). Preferences live in localStorage.
 */
export function GeneralSettingsScreen() {
  const theme = useTheme();
  const [zone, setZone] = useState<TimeZoneChoice>(timeZoneChoice);
  const session = useSession();
  const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'this browser’s zone';
  const required = session.meta?.authentication.required === true;
  const toast = useToast();
  const [loggingOut, setLoggingOut] = useState(false);
  const logout = async () => {
    setLoggingOut(true);
    try {
      await session.logout();
    } catch (err) {
      toast.error(`Could not log out: ${err instanceof Error ? err.message : String(err)}`);
      setLoggingOut(false);
    }
  };

  return (
    <Page title="General">
      <div class="settings">
        <Section title="Appearance" id="settings-appearance">
          <Choices<Theme>
            legend="Theme"
            name="theme"
            value={theme}
            onChange={chooseTheme}
            options={[
              { value: 'system', label: 'System', hint: 'Follow the operating system’s light or dark setting.' },
              { value: 'light', label: 'Light' },
              { value: 'dark', label: 'Dark' },
            ]}
          />
        </Section>

        <Section title="Dates and times" id="settings-time">
          <Choices<TimeZoneChoice>
            legend="Time zone"
            name="timezone"
            value={zone}
            onChange={(choice) => {
              chooseTimeZone(choice);
              setZone(choice);
            }}
            options={[
              { value: 'local', label: 'Local', hint: localZone },
              { value: 'utc', label: 'UTC', hint: 'Coordinated Universal Time, as the API returns times.' },
            ]}
          />
          <p class="settings-example">
            Times are shown like this: <strong data-testid="time-example">{formatDate(new Date().toISOString())}</strong>
          </p>
        </Section>

        <Section title="Session" id="settings-session">
          {session.identity ? (
            <>
              <p>
                Signed in as <strong data-testid="session-name">{session.identity.name}</strong>
                {session.identity.detail && <span class="muted"> ({session.identity.detail})</span>} with {session.identity.method}
                {session.hasToken ? ', kept for this browser tab only.' : '.'}
              </p>
              <p class="muted">
                {session.hasToken
                  ? 'Logging out forgets the client token in this browser; it stays valid elsewhere until revoked under API tokens.'
                  : 'Logging out ends this session on the server and clears its cookie.'}
              </p>
              <div class="form-actions">
                <button type="button" class="button button-danger-quiet" onClick={logout} disabled={loggingOut}>
                  {loggingOut ? 'Logging out…' : 'Log out'}
                </button>
              </div>
            </>
          ) : (
            <p class="muted">This instance does not require authentication: there is nothing to log out of.</p>
          )}
        </Section>

        {session.meta && (
          <Section title="About" id="settings-about">
            <dl class="settings-facts">
              <dt>Version</dt>
              <dd class="mono">{session.meta.version}</dd>
              {session.meta.commit && (
                <>
                  <dt>Commit</dt>
                  <dd class="mono">{session.meta.commit}</dd>
                </>
              )}
              {session.meta.buildDate && (
                <>
                  <dt>Built</dt>
                  <dd>{formatDate(session.meta.buildDate)}</dd>
                </>
              )}
              <dt>Storage</dt>
              <dd>
                {session.meta.storage.type}
                {session.readOnly && ' (read-only)'}
              </dd>
              <dt>Authentication</dt>
              <dd>{required ? 'required' : 'not required'}</dd>
            </dl>
          </Section>
        )}
      </div>
    </Page>
  );
}

function Section({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

interface Choice<T extends string> {
  value: T;
  label: string;
  hint?: string;
}

/** A radio group: arrow keys move between the choices, as the browser does for radios. */
function Choices<T extends string>({ legend, name, value, onChange, options }: { legend: string; name: string; value: T; onChange: (v: T) => void; options: Choice<T>[] }) {
  return (
    <fieldset class="settings-choices">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value} class="settings-choice">
          <input type="radio" name={name} value={o.value} checked={value === o.value} onChange={() => onChange(o.value)} />
          <span>
            {o.label}
            {o.hint && <span class="muted settings-hint"> — {o.hint}</span>}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
