import { describe, expect, it } from 'vitest';
import { grantsToJson, highestRole, roleOn, RoleResolver, type RolesConfig } from '../../internal/auth';
import { identityOf } from '../../internal/auth/roles';
import { authorizationSchema } from '../../internal/config/sign-in';
import type { Authentication, AuthMethod } from '../../internal/core';

/**
 * Identities → grants (internal/auth/roles.ts), with authentications built by hand as each
 * sign-in method stores them (the helpers' contract): tokens' roles and scopes, bindings by
 * email, group, subject, GitHub organization or team and claim, default_role, the strongest
 * role winning, and the per-authentication memo.
 */

let ids = 0;
const authOf = (method: AuthMethod, metadata: Record<string, string>): Authentication => ({
  id: `auth-${++ids}`,
  method,
  hashedToken: '',
  metadata,
  expiresAt: null,
  createdAt: 0,
  updatedAt: 0,
});

/** The `authorization` section as the configuration's schema reads it (so bindings get their defaults). */
function rolesConfig(authorization: Record<string, unknown>): RolesConfig {
  return authorizationSchema.parse({ required: true, ...authorization });
}

const json = (resolver: RoleResolver, auth: Authentication) => grantsToJson(resolver.grantsOf(auth));

const oidc = (metadata: Record<string, unknown>) =>
  authOf('METHOD_OIDC', Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));

describe('tokens', () => {
  const resolver = new RoleResolver(rolesConfig({ default_role: 'viewer', roles: [{ role: 'admin', match: { emails: ['root@example.com'] } }] }));

  it('a token without a role is an admin; with one, that role; on its namespace only when scoped', () => {
    expect(json(resolver, authOf('METHOD_TOKEN', {}))).toEqual({ global: 'admin', namespaces: {} });
    expect(json(resolver, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'viewer' }))).toEqual({ global: 'viewer', namespaces: {} });
    expect(json(resolver, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'editor', 'io.flipt.auth.token.namespace': 'own' }))).toEqual({ global: null, namespaces: { own: 'editor' } });
    expect(json(resolver, authOf('METHOD_TOKEN', { 'io.flipt.auth.token.namespace': 'own' }))).toEqual({ global: null, namespaces: { own: 'admin' } });
  });

  it('an unreadable role gives nothing; bindings and default_role never apply to tokens', () => {
    expect(json(resolver, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'owner' }))).toEqual({ global: null, namespaces: {} });
    // A token carrying another method's keys (metadata is the creator's to choose) is still a token.
    expect(json(resolver, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'viewer', 'io.flipt.auth.oidc.email': 'root@example.com' }))).toEqual({ global: 'viewer', namespaces: {} });
  });

  it('with authorization.required off every caller is an admin, a scoped token on its namespace only', () => {
    const off = new RoleResolver(rolesConfig({ required: false, roles: [] }));
    expect(json(off, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'viewer' }))).toEqual({ global: 'admin', namespaces: {} });
    expect(json(off, authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'viewer', 'io.flipt.auth.token.namespace': 'own' }))).toEqual({ global: null, namespaces: { own: 'admin' } });
    expect(json(off, oidc({ 'io.flipt.auth.oidc.email': 'nobody@example.com' }))).toEqual({ global: 'admin', namespaces: {} });
  });
});

describe('bindings', () => {
  const resolver = new RoleResolver(
    rolesConfig({
      default_role: 'viewer',
      roles: [
        { role: 'admin', match: { emails: ['Root@Example.com'] } },
        { role: 'editor', namespaces: ['payments', 'checkout'], match: { groups: ['payments-team'] } },
        { role: 'admin', namespaces: ['payments'], match: { groups: ['payments-leads'] } },
        { role: 'viewer', match: { github: ['acme'] } },
        { role: 'editor', namespaces: ['web'], match: { github: ['acme/frontend'] } },
        { role: 'editor', match: { subjects: ['system:serviceaccount:ci:deployer'] } },
        { role: 'admin', namespaces: ['ops'], match: { claims: { 'realm_access.roles': ['flipt-ops'], department: ['sre'] } } },
      ],
    }),
  );

  it('OIDC: email (case-insensitive), groups, claims (nested paths, arrays, scalars); highest per namespace', () => {
    expect(json(resolver, oidc({ 'io.flipt.auth.oidc.email': 'root@EXAMPLE.com' }))).toEqual({ global: 'admin', namespaces: {} });
    expect(json(resolver, oidc({ 'io.flipt.auth.oidc.email': 'ann@example.com', 'io.pennon.auth.groups': ['payments-team'] }))).toEqual({ global: null, namespaces: { checkout: 'editor', payments: 'editor' } });
    expect(json(resolver, oidc({ 'io.pennon.auth.groups': ['payments-team', 'payments-leads'] }))).toEqual({ global: null, namespaces: { checkout: 'editor', payments: 'admin' } });
    expect(json(resolver, oidc({ 'io.pennon.auth.claims': { realm_access: { roles: ['x', 'flipt-ops'] } } }))).toEqual({ global: null, namespaces: { ops: 'admin' } });
    expect(json(resolver, oidc({ 'io.pennon.auth.claims': { department: 'sre' } }))).toEqual({ global: null, namespaces: { ops: 'admin' } });
  });

  it('a global role covers namespaces where it is at least as strong: only stronger namespace roles are kept', () => {
    const both = oidc({ 'io.flipt.auth.oidc.sub': 'u1', 'io.pennon.auth.groups': ['payments-team', 'payments-leads'], 'io.pennon.auth.claims': { department: 'sre' }, 'io.flipt.auth.oidc.email': 'root@example.com' });
    expect(json(resolver, both)).toEqual({ global: 'admin', namespaces: {} });
    const viewerPlus = new RoleResolver(rolesConfig({ roles: [{ role: 'viewer', match: { groups: ['all'] } }, { role: 'viewer', namespaces: ['a'], match: { groups: ['all'] } }, { role: 'editor', namespaces: ['b'], match: { groups: ['all'] } }] }));
    const grants = viewerPlus.grantsOf(oidc({ 'io.pennon.auth.groups': ['all'] }));
    expect(grantsToJson(grants)).toEqual({ global: 'viewer', namespaces: { b: 'editor' } });
    expect([roleOn(grants, 'a'), roleOn(grants, 'b'), roleOn(grants, 'zzz'), roleOn(grants, null), highestRole(grants)]).toEqual(['viewer', 'editor', 'viewer', 'viewer', 'editor']);
  });

  it('an email the provider has not verified does not match', () => {
    expect(json(resolver, oidc({ 'io.flipt.auth.oidc.email': 'root@example.com', 'io.flipt.auth.oidc.email_verified': 'false' }))).toEqual({ global: 'viewer', namespaces: {} });
  });

  it('GitHub: organizations and teams (case-insensitive), its email', () => {
    const gh = (orgs: string[], email?: string) => authOf('METHOD_GITHUB', { 'io.pennon.auth.github': JSON.stringify(orgs), ...(email && { 'io.flipt.auth.github.email': email }) });
    expect(json(resolver, gh(['ACME']))).toEqual({ global: 'viewer', namespaces: {} });
    expect(json(resolver, gh(['acme', 'acme/frontend']))).toEqual({ global: 'viewer', namespaces: { web: 'editor' } });
    expect(json(resolver, gh(['other'], 'root@example.com'))).toEqual({ global: 'admin', namespaces: {} });
    // Groups and claims are not GitHub's: keys of other methods are not read.
    expect(json(resolver, authOf('METHOD_GITHUB', { 'io.pennon.auth.groups': '["payments-leads"]' }))).toEqual({ global: 'viewer', namespaces: {} });
  });

  it('Kubernetes and JWT: subjects from io.pennon.auth.sub; JWT groups, claims and email too', () => {
    expect(json(resolver, authOf('METHOD_KUBERNETES', { 'io.pennon.auth.sub': 'system:serviceaccount:ci:deployer', 'io.flipt.auth.k8s.namespace': 'ci' }))).toEqual({ global: 'editor', namespaces: {} });
    expect(json(resolver, authOf('METHOD_KUBERNETES', { 'io.pennon.auth.sub': 'system:serviceaccount:ci:other', 'io.pennon.auth.groups': '["payments-leads"]' }))).toEqual({ global: 'viewer', namespaces: {} });
    const jwt = authOf('METHOD_JWT', { 'io.pennon.auth.sub': 'system:serviceaccount:ci:deployer', 'io.pennon.auth.groups': '["payments-leads"]', 'io.flipt.auth.jwt.email': 'x@example.com' });
    expect(json(resolver, jwt)).toEqual({ global: 'editor', namespaces: { payments: 'admin' } });
  });

  it('default_role when nothing matches (none: no role at all); unreadable JSON matches nothing', () => {
    expect(json(resolver, oidc({ 'io.flipt.auth.oidc.email': 'someone@else.org' }))).toEqual({ global: 'viewer', namespaces: {} });
    const none = new RoleResolver(rolesConfig({ roles: [{ role: 'admin', match: { groups: ['admins'] } }] }));
    expect(json(none, oidc({ 'io.pennon.auth.groups': '{not json' }))).toEqual({ global: null, namespaces: {} });
    expect(json(none, authOf('METHOD_CLOUD', {}))).toEqual({ global: null, namespaces: {} });
    expect(identityOf(authOf('METHOD_OIDC', { 'io.pennon.auth.claims': '[1,2]' })).claims).toEqual({});
  });
});

describe('the memo', () => {
  it('computes once per authentication id, and keeps a bounded number', () => {
    const resolver = new RoleResolver(rolesConfig({ roles: [] }), 3);
    const token = authOf('METHOD_TOKEN', { 'io.pennon.auth.role': 'viewer' });
    const first = resolver.grantsOf(token);
    expect(resolver.grantsOf({ ...token })).toBe(first);
    for (let i = 0; i < 10; i++) resolver.grantsOf(authOf('METHOD_TOKEN', {}));
    expect(resolver.size).toBe(3);
    expect(resolver.grantsOf(token)).not.toBe(first); // forgotten, computed again
    expect(grantsToJson(resolver.grantsOf(token))).toEqual({ global: 'viewer', namespaces: {} });
  });
});
