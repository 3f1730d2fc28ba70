import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { TokensPlaceholder } from './placeholder';

/** API client tokens: list, create (secret shown once), delete. Placeholder until that change lands. */
export const tokensScreen: Screen = {
  nav: { label: 'API tokens', group: 'settings', href: () => paths.tokens },
  routes: [{ path: '/settings/tokens', component: TokensPlaceholder }],
};
