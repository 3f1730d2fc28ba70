import { auditScreen } from '../screens/audit';
import { consoleScreen } from '../screens/console';
import { flagsScreen } from '../screens/flags';
import { gettingStartedScreen } from '../screens/getting-started';
import { namespacesScreen } from '../screens/namespaces';
import { segmentsScreen } from '../screens/segments';
import { settingsScreen } from '../screens/settings';
import { tokensScreen } from '../screens/tokens';
import type { Screen } from './types';

/**
 * Every screen inside the layout, in navigation order. The login screen is outside the layout
 * (app.tsx). A new screen: a folder under screens/ whose index.ts exports a `Screen`, listed here.
 */
export const screens: Screen[] = [flagsScreen, segmentsScreen, consoleScreen, auditScreen, gettingStartedScreen, settingsScreen, namespacesScreen, tokensScreen];

export type { Screen, ScreenRoute, NavEntry } from './types';
export { paths, useRouteParam, DEFAULT_NAMESPACE } from './paths';
