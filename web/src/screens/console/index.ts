import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { ConsolePlaceholder } from './placeholder';

/** The evaluation console: evaluate a flag and see why. Placeholder until that change lands. */
export const consoleScreen: Screen = {
  nav: { label: 'Console', group: 'namespace', href: paths.console },
  routes: [{ path: '/namespaces/:ns/console', component: ConsolePlaceholder }],
};
