/**
 * Preferences kept across visits (theme, last namespace) in localStorage, never secrets (the
 * token is in sessionStorage: api/http.ts). Storage may be refused; preferences then last for
 * the page's life only.
 */
export function readPreference(key: string): string | null {
  try {
    return localStorage.getItem(`pennon.${key}`);
  } catch {
    return null;
  }
}

export function writePreference(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(`pennon.${key}`);
    else localStorage.setItem(`pennon.${key}`, value);
  } catch {
    // Refused: nothing to do.
  }
}
