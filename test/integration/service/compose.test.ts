import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../internal/config';
import { compose } from '../../../internal/service';
import { prepareSchema } from '../../../internal/storage';
import { silentLogger } from '../../../internal/telemetry';
import { evaluationsObserved } from '../../../internal/telemetry/evaluations';

/**
 * The composition root (internal/service/compose.ts) on a real SQLite database: each part built
 * once and shared by the parts that use it, one close for all, and a failed build that leaves
 * nothing open. (Serving what it builds: every server test, through test/support/server.ts.)
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function configFor(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-compose-'));
  dirs.push(dir);
  const file = join(dir, 'pennon.db');
  return { file, config: loadConfig({ env: { PENNON_DB_URL: `file:${file}`, PENNON_LOG_LEVEL: 'silent', ...env } }).config };
}

describe('compose', () => {
  it('builds each part once: the database flag source is the service snapshot cache, and a token deleted through the token service is refused by the authenticator at once', async () => {
    const { config } = configFor();
    const services = await compose(config, { logger: silentLogger() });
    try {
      await prepareSchema(services.connection); // serve's first step once the database answers
      expect(services.sources.of({}).snapshots).toBe(services.snapshots);
      const { clientToken, authentication } = await services.auth.createToken({ name: 'once', description: '', expiresAt: null, namespaceKey: '', metadata: {} });
      expect((await services.authenticator.authenticate(`Bearer ${clientToken}`)).id).toBe(authentication.id);
      expect(await services.auth.delete(authentication.id)).toBe(true);
      await expect(services.authenticator.authenticate(`Bearer ${clientToken}`)).rejects.toThrow('request was not authenticated');
    } finally {
      await services.close();
    }
    await expect(services.store.listNamespaces({ limit: 0, offset: 0 })).rejects.toThrow();
  });

  it('closes what it had built when a later part cannot be built, and the failure is what the caller hears', async () => {
    // The Git storage's CA file is read when its repository is built: after the database, the
    // metrics (which subscribe to every evaluation in the process) and the snapshot cache.
    const { file, config } = configFor({
      PENNON_STORAGE_DEFAULT_REMOTE: 'http://127.0.0.1:9/flags.git',
      PENNON_STORAGE_DEFAULT_CA_CERT_PATH: join(tmpdir(), 'pennon-no-such-dir', 'ca.pem'),
    });
    expect(evaluationsObserved()).toBe(false);
    await expect(compose(config, { logger: silentLogger() })).rejects.toThrow(/ENOENT.*ca\.pem/);
    expect(existsSync(file)).toBe(true); // the database had been opened
    expect(evaluationsObserved()).toBe(false); // the metrics had subscribed: unsubscribed again
  });

  it('builds only what a command asks for: its database, prepared, and the token service over it', async () => {
    const { config } = configFor();
    const tokens = await compose(config, { only: 'tokens', database: 'prepared' });
    try {
      expect(Object.keys(tokens).sort()).toEqual(['auth', 'authenticator', 'clock', 'close', 'config', 'connection', 'onClose', 'store']);
      const { authentication } = await tokens.auth.createToken({ name: 'ci', description: '', expiresAt: null, namespaceKey: '', metadata: {} });
      expect((await tokens.auth.list('METHOD_TOKEN', 0, '')).items.map((a) => a.id)).toEqual([authentication.id]);
    } finally {
      await tokens.close();
    }
  });
});
