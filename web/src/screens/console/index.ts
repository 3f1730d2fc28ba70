import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { ConsoleScreen } from './console';

/** The evaluation console: evaluate a flag for an entity and context, and see the path to the answer. */
export const consoleScreen: Screen = {
  nav: { label: 'Console', group: 'namespace', href: (ns) => paths.console(ns) },
  routes: [{ path: '/namespaces/:ns/console', component: ConsoleScreen }],
};
