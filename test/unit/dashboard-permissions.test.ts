import { describe, expect, it } from 'vitest';
import { ALL_GRANTS, GRANTS_KEY, can, deniedBecause, parseGrants, roleIn, roleLabel, widerIn, type Action, type Grants } from '../../web/src/session/permissions';
import { identityOf, providerLabel, signInOptions } from '../../web/src/session/identity';

/**
 * The dashboard's reading of who is signed in and what they may do: `/auth/v1/self`'s
 * `io.pennon.auth.grants` (helper C's roles) parsed, the one permission helper every screen asks,
 * each method's identity in words, and the sign-in buttons from `/auth/v1/method`.
 */

const grantsOf = (value: unknown) => parseGrants({ [GRANTS_KEY]: typeof value === 'string' ? value : JSON.stringify(value) });
const ACTIONS: Action[] = ['read', 'evaluate', 'write', 'admin'];
const allowed = (grants: Grants, ns?: string) => ACTIONS.filter((a) => can(grants, a, ns));

describe('parseGrants', () => {
  it('absent grants (an older server, authorization off) are everything, and say they were not stated', () => {
    expect(parseGrants({})).toBe(ALL_GRANTS);
    expect(parseGrants(undefined)).toBe(ALL_GRANTS);
    expect(parseGrants({ 'io.flipt.auth.token.name': 'ci' })).toEqual({ global: 'admin', namespaces: {}, stated: false });
  });

  it('reads the global role and the per-namespace roles', () => {
    expect(grantsOf({ global: 'viewer', namespaces: { team: 'editor', ops: 'admin' } })).toEqual({ global: 'viewer', namespaces: { team: 'editor', ops: 'admin' }, stated: true });
    expect(grantsOf({ global: null, namespaces: {} })).toEqual({ global: null, namespaces: {}, stated: true });
    // `namespaces` may be left out.
    expect(grantsOf({ global: 'editor' })).toEqual({ global: 'editor', namespaces: {}, stated: true });
  });

  it('drops roles it does not know, and reads what it cannot parse as no access at all', () => {
    expect(grantsOf({ global: 'owner', namespaces: { a: 'superuser', b: 'viewer', c: 3 } })).toEqual({ global: null, namespaces: { b: 'viewer' }, stated: true });
    for (const broken of ['not json', '[]', 'null', '"admin"', '{"global": ["admin"]}']) {
      const grants = grantsOf(broken);
      expect(grants.stated, broken).toBe(true);
      expect(allowed(grants, 'default'), broken).toEqual([]);
    }
  });
});

describe('can', () => {
  it('a viewer reads and evaluates; an editor also writes; an admin also manages namespaces and tokens', () => {
    expect(allowed(grantsOf({ global: 'viewer' }), 'default')).toEqual(['read', 'evaluate']);
    expect(allowed(grantsOf({ global: 'editor' }), 'default')).toEqual(['read', 'evaluate', 'write']);
    expect(allowed(grantsOf({ global: 'admin' }), 'default')).toEqual(['read', 'evaluate', 'write', 'admin']);
    expect(allowed(grantsOf({ global: null }), 'default')).toEqual([]);
  });

  it('a namespace role adds to the global one in that namespace only, never takes from it', () => {
    const grants = grantsOf({ global: 'viewer', namespaces: { team: 'editor', ops: 'admin' } });
    expect(allowed(grants, 'team')).toEqual(['read', 'evaluate', 'write']);
    expect(allowed(grants, 'ops')).toEqual(['read', 'evaluate', 'write', 'admin']);
    expect(allowed(grants, 'default')).toEqual(['read', 'evaluate']);
    // A lower namespace role than the global one changes nothing.
    expect(allowed(grantsOf({ global: 'editor', namespaces: { team: 'viewer' } }), 'team')).toEqual(['read', 'evaluate', 'write']);
    // Only listed namespaces: nothing elsewhere.
    const only = grantsOf({ global: null, namespaces: { team: 'editor' } });
    expect(allowed(only, 'team')).toEqual(['read', 'evaluate', 'write']);
    expect(allowed(only, 'default')).toEqual([]);
  });

  it('without a namespace (creating one, API tokens) only the global role counts', () => {
    expect(can(grantsOf({ global: 'viewer', namespaces: { ops: 'admin' } }), 'admin')).toBe(false);
    expect(can(grantsOf({ global: 'admin' }), 'admin')).toBe(true);
    expect(can(ALL_GRANTS, 'admin')).toBe(true);
    expect(can(ALL_GRANTS, 'write', 'anything')).toBe(true);
  });

  it('a namespace named like an Object property is just a name', () => {
    const grants = grantsOf({ global: 'viewer', namespaces: {} });
    expect(roleIn(grants, 'constructor')).toBe('viewer');
    expect(roleIn(grants, '__proto__')).toBe('viewer');
    expect(roleIn(grantsOf('{"global": null, "namespaces": {"__proto__": "editor"}}'), '__proto__')).toBe('editor');
  });
});

describe('words', () => {
  it('says which role a disabled control needs, and names roles', () => {
    expect(deniedBecause('write', 'default')).toBe('Needs the editor role in namespace default');
    expect(deniedBecause('admin')).toBe('Needs the admin role');
    expect(roleLabel('viewer')).toBe('Viewer');
    expect(roleLabel(null)).toBe('No access');
  });

  it('lists the namespaces where the caller may do more than everywhere', () => {
    expect(widerIn(grantsOf({ global: 'viewer', namespaces: { team: 'editor', ops: 'admin', same: 'viewer' } }))).toEqual([
      { namespace: 'ops', role: 'admin' },
      { namespace: 'team', role: 'editor' },
    ]);
  });
});

describe('identityOf', () => {
  const at = (method: string, metadata: Record<string, string>) => identityOf({ method: method as never, metadata });

  it('an OIDC session: name, email, the provider by name', () => {
    expect(at('METHOD_OIDC', { 'io.flipt.auth.oidc.provider': 'keycloak', 'io.flipt.auth.oidc.name': 'Ada Lovelace', 'io.flipt.auth.oidc.email': 'ada@example.com', 'io.flipt.auth.oidc.picture': 'https://x/p.png' })).toEqual({
      name: 'Ada Lovelace',
      detail: 'ada@example.com',
      method: 'Keycloak',
      initials: 'AL',
    });
    // No name: the email stands in (not repeated below it).
    expect(at('METHOD_OIDC', { 'io.flipt.auth.oidc.email': 'ada@example.com' })).toMatchObject({ name: 'ada@example.com', detail: null, method: 'OIDC' });
  });

  it('a GitHub session: name and @login', () => {
    expect(at('METHOD_GITHUB', { 'io.flipt.auth.github.name': 'The Octocat', 'io.flipt.auth.github.preferred_username': 'octocat' })).toEqual({ name: 'The Octocat', detail: '@octocat', method: 'GitHub', initials: 'TO' });
    expect(at('METHOD_GITHUB', { 'io.flipt.auth.github.preferred_username': 'octocat' })).toMatchObject({ name: 'octocat', detail: '@octocat' });
  });

  it('a token, a JWT, a Kubernetes service account', () => {
    expect(at('METHOD_TOKEN', { 'io.flipt.auth.token.name': 'initial_bootstrap_token' })).toEqual({ name: 'initial_bootstrap_token', detail: null, method: 'Client token', initials: 'IB' });
    expect(at('METHOD_TOKEN', {})).toMatchObject({ name: 'Client token' });
    expect(at('METHOD_JWT', { 'io.flipt.auth.jwt.email': 'ci@example.com', 'io.flipt.auth.jwt.sub': 'ci' })).toMatchObject({ name: 'ci@example.com', method: 'JWT' });
    expect(at('METHOD_JWT', { 'io.flipt.auth.jwt.sub': 'svc-42' })).toMatchObject({ name: 'svc-42', detail: null });
    expect(at('METHOD_KUBERNETES', { 'io.flipt.auth.k8s.serviceaccount.name': 'checkout', 'io.flipt.auth.k8s.namespace': 'shop' })).toEqual({
      name: 'checkout',
      detail: 'namespace shop',
      method: 'Kubernetes',
      initials: 'CH',
    });
  });
});

describe('sign-in options', () => {
  it('names providers as people read them', () => {
    expect(providerLabel('keycloak')).toBe('Keycloak');
    expect(providerLabel('my_okta')).toBe('My okta');
    expect(providerLabel('gitlab')).toBe('GitLab');
  });

  it('a button per enabled OIDC provider (by name) and for GitHub; nothing for disabled methods or missing URLs', () => {
    const methods = [
      { method: 'METHOD_TOKEN', enabled: true, sessionCompatible: false },
      {
        method: 'METHOD_OIDC',
        enabled: true,
        sessionCompatible: true,
        metadata: {
          providers: {
            keycloak: { authorize_url: '/auth/v1/method/oidc/keycloak/authorize', callback_url: '/auth/v1/method/oidc/keycloak/callback' },
            google: { authorize_url: '/auth/v1/method/oidc/google/authorize' },
            broken: {},
          },
        },
      },
      { method: 'METHOD_GITHUB', enabled: true, sessionCompatible: true, metadata: { authorize_url: '/auth/v1/method/github/authorize' } },
    ];
    expect(signInOptions(methods)).toEqual([
      { label: 'Sign in with Google', url: '/auth/v1/method/oidc/google/authorize' },
      { label: 'Sign in with Keycloak', url: '/auth/v1/method/oidc/keycloak/authorize' },
      { label: 'Sign in with GitHub', url: '/auth/v1/method/github/authorize' },
    ]);
    expect(signInOptions(methods.map((m) => ({ ...m, enabled: false })))).toEqual([]);
    // Today's server (no metadata) offers nothing to click.
    expect(signInOptions([{ method: 'METHOD_OIDC', enabled: true }, { method: 'METHOD_GITHUB', enabled: true, metadata: null }])).toEqual([]);
  });
});
