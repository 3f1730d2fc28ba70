import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { FlagDetailScreen } from './detail';
import { FlagsListScreen } from './list';
import { NewFlagScreen } from './new';

/** Flags: the list, a new flag, a flag's page (details, variants and rules, or rollouts). */
export const flagsScreen: Screen = {
  nav: { label: 'Flags', group: 'namespace', href: paths.flags },
  routes: [
    { path: '/namespaces/:ns/flags', component: FlagsListScreen },
    { path: '/namespaces/:ns/flags/new', component: NewFlagScreen },
    { path: '/namespaces/:ns/flags/:flagKey', component: FlagDetailScreen },
  ],
};
