import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../internal/config';
import { compose, startService, type RunningService } from '../../internal/service';
import { silentLogger } from '../../internal/telemetry';
import { ApiClient } from './server';

/**
 * A real Pennon server on 127.0.0.1 whose `audit` section is written to a configuration file (the
 * templates are lists of objects, which variables cannot set), over a SQLite file of its own
 * unless `PENNON_DB_URL` names another database. Built as `pennon serve` builds it.
 */
export interface AuditTestServer {
  url: string;
  api: ApiClient;
  config: Config;
  service: RunningService;
  dir: string;
  dbUrl: string;
  stop(): Promise<void>;
}

export async function startAuditServer(audit: unknown, env: Record<string, string> = {}, options: { logger?: Logger; dir?: string } = {}): Promise<AuditTestServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'pennon-audit-'));
  const path = join(dir, 'pennon.yml');
  writeFileSync(path, dump({ audit }));
  const dbUrl = env.PENNON_DB_URL ?? `file:${join(dir, 'pennon.db')}`;
  const cleanup = () => {
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { config } = loadConfig({
      path,
      env: { PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: '0', PENNON_SERVER_GRPC_PORT: '0', PENNON_LOG_LEVEL: 'silent', ...env, PENNON_DB_URL: dbUrl },
    });
    const services = await compose(config, { logger: options.logger ?? silentLogger() });
    const service = await startService(services);
    return {
      url: service.url,
      api: new ApiClient(service.url),
      config,
      service,
      dir,
      dbUrl,
      async stop() {
        await service.stop();
        cleanup();
      },
    };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** A pino logger that keeps what it writes (level and message), to check what an operator reads. */
export async function recordingLogger(): Promise<{ logger: Logger; lines: { level: number; msg: string; [key: string]: unknown }[] }> {
  const { default: pino } = await import('pino');
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}
