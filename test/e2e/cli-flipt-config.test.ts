import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, tempDir } from '../support/cli';

/**
 * A Flipt v1 deployment's configuration given to the built executable unchanged: found where
 * Flipt finds it without --config (the per-user flipt/config.yml), its Flipt-only keys warned
 * about, its FLIPT_* variables read; `serve` says which file it used and serves on its port.
 */
describe('a Flipt configuration, as the executable finds and reads it', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('pennon-flipt-config-');
    mkdirSync(join(dir, 'flipt'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('config validate reads $XDG_CONFIG_HOME/flipt/config.yml when no file is given, with a warning per Flipt-only key', async () => {
    const file = join(dir, 'flipt', 'config.yml');
    writeFileSync(file, `log:\n  level: INFO\n  grpc_level: ERROR\nserver:\n  protocol: http\n  http_port: "8089"\nmeta:\n  check_for_updates: false\ndb:\n  url: file:${join(dir, 'f.db')}\n`);
    const result = await pennon(['config', 'validate', '--json'], { env: { XDG_CONFIG_HOME: dir, FLIPT_SERVER_GRPC_PORT: '9099' } });
    expect(result.exitCode, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { valid: boolean; warnings: string[]; config: { server: { http_port: number; grpc_port: number } } };
    expect(out.valid).toBe(true);
    // PENNON_SERVER_GRPC_PORT (set by the helper for every test) wins over FLIPT_SERVER_GRPC_PORT, and says so.
    expect(out.config.server.http_port).toBe(8089);
    expect(out.warnings).toEqual([
      "log.grpc_level: Flipt's setting, not implemented by Pennon (gRPC's own log lines are written at debug level); ignored",
      "meta: Flipt's setting, not implemented by Pennon (Pennon never checks for updates nor sends telemetry); ignored",
      'PENNON_SERVER_GRPC_PORT and FLIPT_SERVER_GRPC_PORT both set server.grpc_port: PENNON_SERVER_GRPC_PORT is used',
    ]);
  });

  it('serve logs the file it read and listens on its port', async () => {
    const port = await freePort();
    const file = join(dir, 'flipt', 'config.yml');
    writeFileSync(file, `server:\n  host: 127.0.0.1\n  http_port: "${port}"\n  workers: 1\ndb:\n  url: file:${join(dir, 's.db')}\n`);
    const child = pennon(['serve'], { env: { XDG_CONFIG_HOME: dir, PENNON_LOG_LEVEL: 'info', PENNON_LOG_ENCODING: 'json' } });
    try {
      const deadline = Date.now() + 20_000;
      let ok = false;
      while (!ok && Date.now() < deadline) {
        ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
        if (!ok) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ok).toBe(true);
    } finally {
      child.kill('SIGTERM');
    }
    const { stdout } = await child;
    const lines = String(stdout).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; config?: string });
    expect(lines.find((l) => l.msg === 'configuration file')?.config).toBe(file);
  });
});
