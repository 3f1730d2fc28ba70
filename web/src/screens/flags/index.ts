import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { FlagsPlaceholder } from './placeholder';

/** Flags: list, create, detail (variants, rules, rollouts). Placeholder until that change lands. */
export const flagsScreen: Screen = {
  nav: { label: 'Flags', group: 'namespace', href: paths.flags },
  routes: [
    { path: '/namespaces/:ns/flags', component: FlagsPlaceholder },
    { path: '/namespaces/:ns/flags/*', component: FlagsPlaceholder },
  ],
};
