import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { NamespaceEditScreen, NamespaceNewScreen } from './form';
import { NamespacesListScreen } from './list';

/** Settings → Namespaces: the table, create, edit, delete (Flipt's settings/namespaces). */
export const namespacesScreen: Screen = {
  nav: { label: 'Namespaces', group: 'settings', href: () => paths.namespaces },
  routes: [
    { path: '/settings/namespaces', component: NamespacesListScreen },
    { path: '/settings/namespaces/new', component: NamespaceNewScreen },
    { path: '/settings/namespaces/:key', component: NamespaceEditScreen },
  ],
};
