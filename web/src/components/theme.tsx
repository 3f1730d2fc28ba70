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
    <button type="button" class="button button-quiet" onClick={() => chooseTheme(next)} title={`Switch to ${next}`}>
      {LABEL[theme]}
    </button>
  );
}
