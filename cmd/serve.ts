import type { Command } from 'commander';
import { configFrom, fail, type GlobalOptions } from './common';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP API (migrates a fresh database; refuses one with pending migrations)')
    .action(async (_options: object, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { config, warnings } = await configFrom(globals);
        const [{ startService }, { createLogger }] = await Promise.all([import('../internal/service'), import('../internal/telemetry')]);
        const logger = createLogger(config.log);
        for (const warning of warnings) logger.warn(warning);
        const service = await startService(config, logger);

        let signals = 0;
        const onSignal = (signal: NodeJS.Signals) => {
          signals += 1;
          // A second signal means "now": skip the graceful part.
          if (signals > 1) process.exit(1);
          logger.info({ signal }, 'shutting down');
          service.stop().then(
            () => process.exit(0),
            (err: unknown) => {
              logger.error({ err }, 'shutdown failed');
              process.exit(1);
            },
          );
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      } catch (err) {
        fail(err, globals);
      }
    });
}
