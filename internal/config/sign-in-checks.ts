import type { Config } from './schema';

/** The sign-in rules that span keys, each naming the key to fix. */
export function signInChecks(authentication: Config['authentication'], authorization: Config['authorization']): string[] {
  const problems: string[] = [];
  const { methods, session } = authentication;
  const enabled = (['token', 'oidc', 'github', 'kubernetes', 'jwt'] as const).filter((m) => methods[m].enabled);
  if (authentication.required && enabled.length === 0) problems.push('authentication.required: needs an authentication method; enable one of authentication.methods.token, .oidc, .github, .kubernetes, .jwt');
  for (const name of ['token', 'oidc', 'github', 'kubernetes'] as const) {
    const { cleanup } = methods[name];
    if (cleanup.interval <= 0) problems.push(`authentication.methods.${name}.cleanup.interval: must be greater than 0`);
    if (cleanup.grace_period <= 0) problems.push(`authentication.methods.${name}.cleanup.grace_period: must be greater than 0`);
  }
  if ((methods.oidc.enabled || methods.github.enabled) && session.domain === '') {
    problems.push('authentication.session.domain: required when a session method (oidc, github) is enabled: the host people reach Pennon at');
  }
  if (methods.oidc.enabled) {
    for (const [name, provider] of Object.entries(methods.oidc.providers)) {
      // issuer_url is not required here, as in Flipt: its absence is reported when the provider is first used.
      for (const key of ['client_id', 'client_secret', 'redirect_address'] as const) {
        if (provider[key] === '') problems.push(`authentication.methods.oidc.providers.${name}.${key}: required`);
      }
    }
    for (const [i, pattern] of methods.oidc.email_matches.entries()) {
      try {
        new RegExp(pattern);
      } catch {
        problems.push(`authentication.methods.oidc.email_matches[${i}]: "${pattern}" is not a regular expression`);
      }
    }
  }
  if (methods.github.enabled) {
    for (const key of ['client_id', 'client_secret', 'redirect_address'] as const) {
      if (methods.github[key] === '') problems.push(`authentication.methods.github.${key}: required`);
    }
    for (const org of Object.keys(methods.github.allowed_teams)) {
      if (methods.github.allowed_organizations.length > 0 && !methods.github.allowed_organizations.includes(org)) {
        problems.push(`authentication.methods.github.allowed_teams.${org}: the organization must be in allowed_organizations`);
      }
    }
  }
  if (methods.jwt.enabled && (methods.jwt.jwks_url === '') === (methods.jwt.public_key_file === '')) {
    problems.push('authentication.methods.jwt: set exactly one of jwks_url and public_key_file');
  }
  if (authorization.required && !authentication.required) problems.push('authorization.required: needs authentication.required: true (roles are given to authenticated callers)');
  return problems;
}
