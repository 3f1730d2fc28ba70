import { readPreference, writePreference } from './storage';

/**
 * Where displayed times are: the reader's local time zone, or UTC (Settings → General,
 * remembered across visits like Flipt's timezone preference).
 */
export type TimeZoneChoice = 'local' | 'utc';

let zone: TimeZoneChoice = readPreference('timezone') === 'utc' ? 'utc' : 'local';

export function timeZoneChoice(): TimeZoneChoice {
  return zone;
}

export function chooseTimeZone(choice: TimeZoneChoice): void {
  zone = choice;
  writePreference('timezone', choice === 'utc' ? 'utc' : null);
}

/** Timestamps as the API gives them (RFC 3339) → a date and time in the chosen zone (UTC ones say so). */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (zone === 'utc') return `${date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })} UTC`;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
