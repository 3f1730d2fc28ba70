import { render } from 'preact';
import { App } from './app';
import { applyTheme, storedTheme } from './components/theme';
import './styles/index.css';

// Applied before the first render so a stored dark theme does not flash light.
applyTheme(storedTheme());
const root = document.getElementById('app')!;
// index.html's "Loading…" placeholder: Preact would keep it beside the app, not replace it.
root.textContent = '';
render(<App />, root);
