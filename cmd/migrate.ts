import type { Command } from 'commander';
import { configFrom, fail, type GlobalOptions } from './common';

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (back up the database first)')
    .action(async (_options: object, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { config } = await configFrom(globals);
        const [{ systemClock }, { openStore }, { migrate }] = await Promise.all([
          import('../internal/core'),
          import('../internal/service'),
          import('../internal/storage'),
        ]);
        const { connection } = openStore(config.db, systemClock());
        try {
          const applied = await migrate(connection);
          process.stderr.write(
            applied.length > 0 ? `applied ${applied.length} migration(s): ${applied.join(', ')}\n` : 'the database is up to date\n',
          );
        } finally {
          await connection.close();
        }
      } catch (err) {
        fail(err, globals);
      }
    });
}
