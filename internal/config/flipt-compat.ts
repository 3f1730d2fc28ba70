import { FLIPT_ENV_PREFIX, isPlainObject as isTree } from './env';

/**
 * A Flipt v1.61.1 configuration read as is. Flipt's keys that Pennon implements mean what they
 * mean in Flipt (the schema has them); the ones it does not are set aside here before the schema
 * sees the tree, each with one warning saying what Pennon does instead — only keys neither knows
 * are errors. Values only Flipt has are mapped where Pennon has the equivalent (Flipt v1's Git
 * storage becomes a Flipt v2 storage and environment, a Jaeger or Zipkin exporter OTLP, which
 * both accept) and warned about.
 */

type Tree = Record<string, unknown>;

/** Flipt's keys Pennon does not implement (`*`: a user-named key), and what Pennon does instead. */
const NOT_IMPLEMENTED: readonly (readonly [string, string])[] = [
  ['log.grpc_level', "gRPC's own log lines are written at debug level"],
  ['log.keys', 'log lines use the keys time, level and msg'],
  ['ui.default_theme', 'the dashboard follows the system theme'],
  ['ui.topbar', 'the dashboard has no custom top bar'],
  ['diagnostics', 'no profiling endpoints are served'],
  ['meta', 'Pennon never checks for updates nor sends telemetry'],
  ['analytics', 'evaluation analytics are not stored'],
  ['audit.sinks.kafka', 'audit events go to the log and webhook sinks (Slack and Teams formats included) and stay queryable at /api/v1/audit/events'],
  ['audit.sinks.cloud', 'Flipt Cloud is not a sink: use the webhook sink'],
  ['authorization.backend', "Rego policies are not run: Pennon's built-in roles apply (authorization.roles)"],
  ['authorization.local', "Rego policies are not run: Pennon's built-in roles apply (authorization.roles)"],
  ['authorization.bundle', "Rego policies are not run: Pennon's built-in roles apply (authorization.roles)"],
  ['authorization.object', "Rego policies are not run: Pennon's built-in roles apply (authorization.roles)"],
  ['authentication.session.storage', 'sessions are client tokens kept in the database'],
  ['authentication.methods.oidc.cache_ttl', 'discovery documents are kept for the life of the process'],
  ['experimental', 'Flipt v1.61.1 ignores it too'],
  ['server.cloud', 'Flipt ignores it too'],
  ['db.migrations_path', 'Flipt ignores it too: migrations are built in'],
  ['db.migrations', 'Flipt ignores it too: migrations are built in'],
  ['cache.memory.enabled', 'Flipt ignores it too: cache.enabled turns the cache on'],
  ['cache.memory.expiration', 'Flipt ignores it too: cache.ttl is the expiry'],
  ['cache.memory.items', 'Flipt ignores it too'],
  ['metrics.otlp', 'metrics are served for Prometheus at /metrics only'],
  ['tracing.jaeger', 'traces are exported over OTLP (tracing.otlp), which Jaeger accepts'],
  ['tracing.zipkin', 'traces are exported over OTLP (tracing.otlp), which Zipkin accepts'],
];

function warnNotImplemented(path: string, instead: string): string {
  return `${path}: Flipt's setting, not implemented by Pennon (${instead}); ignored`;
}

/** Removes the keys a pattern names (walking `*` over every key), calling `found` with each path. */
function removeMatches(tree: Tree, parts: string[], prefix: string, found: (path: string) => void): void {
  const [head, ...rest] = parts;
  const keys = head === '*' ? Object.keys(tree) : Object.hasOwn(tree, head) ? [head] : [];
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (rest.length === 0) {
      delete tree[key];
      found(path);
    } else if (isTree(tree[key])) {
      removeMatches(tree[key] as Tree, rest, path, found);
    }
  }
}

/** The tree without Flipt's keys Pennon does not implement, Flipt-only values mapped; a warning for each. */
export function readFliptConfiguration(input: unknown): { tree: unknown; warnings: string[] } {
  if (!isTree(input)) return { tree: input, warnings: [] };
  const tree = structuredClone(input) as Tree;
  const warnings: string[] = [];
  mapValues(tree, warnings);
  mapGitStorage(tree, warnings);
  for (const [pattern, instead] of NOT_IMPLEMENTED) {
    removeMatches(tree, pattern.split('.'), '', (path) => warnings.push(warnNotImplemented(path, instead)));
  }
  return { tree, warnings };
}

/** Flipt-only values of keys Pennon has. */
function mapValues(tree: Tree, warnings: string[]): void {
  const tracing = tree.tracing;
  if (isTree(tracing)) {
    if (tracing.exporter === 'jaeger' || tracing.exporter === 'zipkin') {
      warnings.push(`tracing.exporter: ${tracing.exporter} is not implemented; traces are exported over OTLP (tracing.otlp.endpoint), which ${tracing.exporter === 'jaeger' ? 'Jaeger' : 'Zipkin'} accepts`);
      tracing.exporter = 'otlp';
    }
    if (Array.isArray(tracing.propagators)) {
      // Flipt's propagators Pennon lacks are dropped with a warning; names neither has stay, for the schema to refuse.
      const fliptOnly = new Set(['b3', 'b3multi', 'jaeger', 'xray', 'ottrace']);
      const dropped = tracing.propagators.filter((p) => fliptOnly.has(String(p)));
      if (dropped.length > 0) {
        warnings.push(`tracing.propagators: ${dropped.join(', ')} not implemented by Pennon (tracecontext and baggage are); ignored`);
        tracing.propagators = tracing.propagators.filter((p) => !fliptOnly.has(String(p)));
      }
    }
  }
  const metrics = tree.metrics;
  if (isTree(metrics) && metrics.exporter === 'otlp') {
    warnings.push('metrics.exporter: otlp is not implemented; metrics are served for Prometheus at /metrics');
    metrics.exporter = 'prometheus';
  }
}

const V1_STORAGE_SECTIONS = ['local', 'git', 'object', 'oci'];

/**
 * Flipt v1's `storage: {type: git, git: {repository, ref, …}}` is Flipt v2's storage and
 * environment here: `storage.default` (remote, branch, poll interval, TLS, backend),
 * `credentials.default` (basic or token authentication) and the default environment reading it.
 * Flipt v1's sections for storage types it does not use are ignored, as Flipt ignores them; the
 * local, object and OCI storage types, and Git over SSH, are accepted with a warning saying that
 * flags are served from the database instead.
 */
function mapGitStorage(tree: Tree, warnings: string[]): void {
  const storage = tree.storage;
  if (!isTree(storage)) return;
  const type = storage.type;
  const git = storage.git;
  const isV1Git = isTree(git) && git.remote === undefined && (git.repository !== undefined || type === 'git');
  for (const section of V1_STORAGE_SECTIONS) {
    if (section === 'git' && !isV1Git) continue; // a Flipt v2 storage that happens to be named "git"
    if (storage[section] !== undefined && type !== section) {
      warnings.push(warnNotImplemented(`storage.${section}`, `storage.type is ${String(type ?? 'database')}: Flipt ignores it too`));
      delete storage[section];
    }
  }
  if (type === 'local' || type === 'object' || type === 'oci') {
    // Accepted with a warning, as the issue of moving from Flipt asks: the operator sees at every
    // start that flags now come from the database, and how to bring them there.
    warnings.push(
      `storage.type: ${type} (Flipt v1's ${type} storage) is not implemented by Pennon: flags are served from the database (db.url) instead; bring them there with \`pennon flag import\`, or keep them in Git as Flipt v2 does (storage.<name>.remote, environments)`,
    );
    storage.type = 'database';
    delete storage[type];
    return;
  }
  if (type === 'git' && isTree(git) && typeof git.repository === 'string' && !/^https?:\/\//i.test(git.repository)) {
    warnings.push(
      `storage.git.repository: ${remoteForWarning(git.repository)} is fetched over SSH, which Pennon does not implement: flags are served from the database (db.url) instead; use the repository's https:// address to keep them in Git`,
    );
    delete storage.git;
    storage.type = 'database';
    return;
  }
  if (type !== 'git' || !isTree(git)) return;
  delete storage.git;
  storage.type = 'database';
  const auth = isTree(git.authentication) ? git.authentication : {};
  const target: Tree = { remote: git.repository ?? '' };
  if (git.ref !== undefined) target.branch = git.ref;
  for (const key of ['poll_interval', 'ca_cert_path', 'ca_cert_bytes', 'insecure_skip_tls', 'backend']) if (git[key] !== undefined) target[key] = git[key];
  if (isTree(auth.basic) || isTree(auth.token)) {
    const credentials = isTree(tree.credentials) ? tree.credentials : (tree.credentials = {});
    (credentials as Tree).default = isTree(auth.basic) ? { type: 'basic', basic: auth.basic } : { type: 'access_token', access_token: (auth.token as Tree).access_token ?? '' };
    target.credentials = 'default';
  }
  if (isTree(auth.ssh)) warnings.push(warnNotImplemented('storage.git.authentication.ssh', 'Git is fetched over http(s) only'));
  if (git.ref_type !== undefined && git.ref_type !== 'static') warnings.push(warnNotImplemented('storage.git.ref_type', 'the branch named by storage.git.ref is followed'));
  storage.default = target;
  const environments = isTree(tree.environments) ? tree.environments : (tree.environments = {});
  (environments as Tree).default = { storage: 'default', default: true, ...(typeof git.directory === 'string' && git.directory !== '' && { directory: git.directory }) };
  warnings.push("storage.type: git (Flipt v1's Git storage) is read as Flipt v2's: storage.default and the environment default");
}

/** A remote as a warning may show it: no password. */
function remoteForWarning(remote: string): string {
  return remote.replace(/\/\/[^@/]*@/, '//');
}

/** For a FLIPT_* variable that names no key of Pennon's: the warning when it names one of Flipt's that Pennon does not implement. */
export function fliptOnlyVariable(name: string): string | null {
  if (!name.startsWith(FLIPT_ENV_PREFIX)) return null;
  for (const [pattern, instead] of NOT_IMPLEMENTED) {
    const prefix = FLIPT_ENV_PREFIX + pattern.replace(/\*/g, '').replace(/\./g, '_').toUpperCase();
    if (name === prefix || name.startsWith(`${prefix}_`)) return `environment variable ${name}: Flipt's setting, not implemented by Pennon (${instead}); ignored`;
  }
  return null;
}
