import { render } from 'preact';
import { App } from './app';
import { applyTheme, storedTheme } from './components/theme';
import './styles.css';

// Applied before the first render so a stored dark theme does not flash light.
applyTheme(storedTheme());
render(<App />, document.getElementById('app')!);
