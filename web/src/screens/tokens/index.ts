import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { TokensScreen } from './list';

/** Settings → API tokens (Flipt's settings/tokens): list, create (the secret shown once), delete one or several. */
export const tokensScreen: Screen = {
  nav: { label: 'API tokens', group: 'settings', href: () => paths.tokens, needs: 'admin' },
  routes: [{ path: '/settings/tokens', component: TokensScreen }],
};
