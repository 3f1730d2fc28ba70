import { ANY_GRANT, LEAST_ROLE, PERMISSIONS } from '../../internal/wire/permissions';
import { OPERATIONS, type OperationName } from '../../internal/wire/routes';

/**
 * docs/ROLES.md's permission table, rendered from the wire table (internal/wire/permissions.ts
 * and routes.ts), so the page cannot drift from what the gate enforces: test/unit/roles-doc.test.ts
 * compares the page with this, and rewrites it with PENNON_WRITE_DOCS=1.
 */

export const TABLE_START = '<!-- permission-table: generated from internal/wire/permissions.ts; PENNON_WRITE_DOCS=1 npx vitest run test/unit/roles-doc.test.ts -->';
export const TABLE_END = '<!-- /permission-table -->';

function where(name: OperationName): string {
  const permission = PERMISSIONS[name];
  if (LEAST_ROLE[permission] === null) return '—';
  if (ANY_GRANT.has(name)) return name === 'ListNamespaces' ? 'any namespace (sees its own)' : 'any namespace';
  const reads = OPERATIONS[name].bindings.map((b) => b.namespace.from);
  if (reads.every((from) => from === 'none')) return 'every namespace';
  const optional = OPERATIONS[name].bindings.some((b) => b.namespace.from === 'body' && b.namespace.optional);
  return optional ? "the token's namespace (every namespace for an unscoped token)" : 'the namespace it names';
}

export function permissionTable(): string {
  const rows = (Object.keys(OPERATIONS) as OperationName[]).map((name) => {
    const op = OPERATIONS[name];
    const paths = op.bindings.map((b) => `\`${op.method} ${b.path}\``).join('<br>');
    const least = LEAST_ROLE[PERMISSIONS[name]];
    return `| ${name} | ${paths} | ${op.rpc ? `\`${op.rpc}\`` : '—'} | ${PERMISSIONS[name]} | ${least ?? '—'} | ${where(name)} |`;
  });
  const flagd = '| flagd (every method) | — | `flagd.evaluation.v1.Service/*`, `flagd.evaluation.v2.Service/*` | evaluate | viewer | the namespace X-Flipt-Namespace names |';
  return [TABLE_START, '', '| operation | HTTP | gRPC | permission | least role | held on |', '|---|---|---|---|---|---|', ...rows, flagd, '', TABLE_END].join('\n');
}
