import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { GettingStartedScreen } from './getting-started';

/** Getting started (Flipt's onboarding and support pages): first steps, and how applications call Pennon. */
export const gettingStartedScreen: Screen = {
  nav: { label: 'Getting started', group: 'namespace', href: paths.gettingStarted },
  routes: [{ path: '/namespaces/:ns/getting-started', component: GettingStartedScreen }],
};
