import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { GeneralSettingsScreen } from './general';

/** Settings → General: theme, time zone, session (Flipt's settings page). */
export const settingsScreen: Screen = {
  nav: { label: 'General', group: 'settings', href: () => paths.settings },
  routes: [
    { path: '/settings', component: GeneralSettingsScreen },
    { path: '/settings/general', component: GeneralSettingsScreen },
  ],
};
