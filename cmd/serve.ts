import { availableParallelism, constants } from 'node:os';
import type { Command } from 'commander';
import type { RunningService } from '../internal/service';
import type { Config } from '../internal/config';
import type { compose as Compose } from '../internal/service';
import { configFrom, fail, type GlobalOptions } from './common';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API (migrates a fresh database; refuses one with pending migrations)')
    .action(async (_options: object, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { config, warnings, path } = await configFrom(globals);
        const [{ compose, startService, superviseWorkers, workerRole }, { createLogger }] = await Promise.all([import('../internal/service'), import('../internal/telemetry')]);
        const role = workerRole();
        const workers = config.server.workers === 0 ? availableParallelism() : config.server.workers;
        if (!role && workers > 1) {
          // This process supervises the workers; each of them runs this command again as a worker.
          const logger = createLogger(config.log);
          logConfigSource(logger, path);
          for (const warning of warnings) logger.warn(warning);
          superviseWorkers({ workers, logger, args: process.argv.slice(2), afterStop: () => foldSqliteWal(config, compose) });
          return;
        }
        const logger = role ? createLogger(config.log).child({ worker: role.index }) : createLogger(config.log);
        if (!role) {
          logConfigSource(logger, path);
          for (const warning of warnings) logger.warn(warning);
        }

        let service: RunningService | undefined;
        const starting = new AbortController();
        const stopAndExit = () =>
          service!.stop().then(
            // Requests cut at server.shutdown_timeout: said in the log (drain.ts), and in the exit code.
            ({ cut }) => process.exit(cut > 0 ? 1 : 0),
            (err: unknown) => {
              logger.error({ err }, 'shutdown failed');
              process.exit(1);
            },
          );
        let signals = 0;
        // Handlers go in before start-up, which may wait for the database: a signal then ends
        // the wait instead of killing the process with the gRPC and HTTP listeners open.
        const onSignal = (signal: NodeJS.Signals) => {
          signals += 1;
          if (signals > 1) {
            // A second signal means "now": skip the graceful part. 128 + the signal's number
            // (130 for SIGINT, 143 for SIGTERM) is what a shell reports for a process the
            // signal killed, which is what the operator asked for; 1 stays "shutdown failed".
            logger.warn({ signal }, 'second signal: exiting at once');
            process.exit(128 + (constants.signals[signal] ?? 15));
          }
          logger.info({ signal }, 'shutting down');
          if (service) void stopAndExit();
          else starting.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        // The supervisor's stop is a first signal however often it is asked (a terminal's Ctrl-C
        // reaches the workers too, and that must not count twice).
        role?.onStop(() => {
          if (signals > 0) return;
          signals = 1;
          logger.info('shutting down (asked by the supervisor)');
          if (service) void stopAndExit();
          else starting.abort();
        });

        try {
          service = await startService(await compose(config, { logger, worker: role }), { signal: starting.signal, listenWhenReady: role?.listenWhenReady });
          role?.ready();
        } catch (err) {
          // Asked to stop while waiting for the database: nothing was served, a clean exit.
          if (err instanceof Error && err.name === 'StartCancelled') process.exit(0);
          throw err;
        }
        // A signal that came while the last start-up steps ran: shut down now.
        if (starting.signal.aborted) void stopAndExit();
      } catch (err) {
        fail(err, globals);
      }
    });
}

/**
 * SQLite folds its write-ahead log back into the database file when its last connection closes —
 * unless two workers close at once, each seeing the other. So the supervisor opens and closes the
 * database once after they have all gone: the file alone is then the whole database (a copy of it
 * after a stop is a backup).
 */
async function foldSqliteWal(config: Config, compose: typeof Compose): Promise<void> {
  const { databaseUrl } = await import('../internal/service');
  if (!/^(file|sqlite3?):/.test(databaseUrl(config.db))) return;
  const database = await compose(config, { only: 'database', database: 'as-is' });
  await database.close();
}

/** Which file the configuration came from, as Flipt says it (or that there was none). */
function logConfigSource(logger: { info(obj: object, msg: string): void }, path: string | null): void {
  if (path) logger.info({ config: path }, 'configuration file');
  else logger.info({}, 'no configuration file found, using defaults and the environment');
}
