import { useState } from 'preact/hooks';
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

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const next = ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length];
  const choose = () => {
    // Applied in the click itself, not after the next render: the page changes at once.
    applyTheme(next);
    writePreference('theme', next === 'system' ? null : next);
    setTheme(next);
  };
  return (
    <button type="button" class="button button-quiet" onClick={choose} title={`Switch to ${next}`}>
      {LABEL[theme]}
    </button>
  );
}
