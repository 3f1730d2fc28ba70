import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { AuditScreen } from './audit-screen';

/** The namespace's audit trail (issue 20); a flag's and a segment's History (history.tsx) live on their pages. */
export const auditScreen: Screen = {
  nav: { label: 'Audit', group: 'namespace', href: (ns) => paths.audit(ns) },
  routes: [{ path: '/namespaces/:ns/audit', component: AuditScreen }],
};
