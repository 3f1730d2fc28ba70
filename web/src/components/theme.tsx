import { useEffect, useState } from 'preact/hooks';
import { readPreference, writePreference } from '../lib/storage';

/**
 * Light, dark or the system's choice. The stylesheet follows prefers-color-scheme unless
 * <html data-theme> says otherwise; the choice is remembered across visits.
 */
export type Theme = 'system' | 'light' | 'dark';
const ORDER: Theme[] = ['system', 'light', 'dark'];
const LABEL: Record<Theme, string> = { system: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };

export function storedTheme(): Theme {
  const value = readPreference('theme');
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

const listeners = new Set<(theme: Theme) => void>();

/**
 * Applies a theme at once (in the click itself, not after the next render), remembers it, and
 * tells every `useTheme()` — the header's toggle and Settings → General stay in step.
 */
export function chooseTheme(theme: Theme): void {
  applyTheme(theme);
  writePreference('theme', theme === 'system' ? null : theme);
  for (const listener of listeners) listener(theme);
}

/** The chosen theme, following `chooseTheme` from anywhere. */
export function useTheme(): Theme {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    listeners.add(setTheme);
    return () => void listeners.delete(setTheme);
  }, []);
  return theme;
}

export function ThemeToggle() {
  const theme = useTheme();
  const next = ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length];
  return (
    <button type="button" class="button button-quiet topbar-button" onClick={() => chooseTheme(next)} title={`Switch to ${next}`}>
      <ThemeIcon theme={theme} />
      <span class="topbar-words">{LABEL[theme]}</span>
    </button>
  );
}

/** Shown instead of the words in a narrow window: a sun, a moon, or half of each for the system's choice. */
function ThemeIcon({ theme }: { theme: Theme }) {
  return (
    <svg class="topbar-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round">
      {theme === 'dark' ? (
        <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z" />
      ) : theme === 'light' ? (
        <>
          <circle cx="12" cy="12" r="4" />
          <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
        </>
      ) : (
        <>
          <circle cx="12" cy="12" r="9" />
          <path d="M12 3a9 9 0 0 1 0 18z" fill="currentColor" />
        </>
      )}
    </svg>
  );
}
