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
        const [{ compose }, { migrate }] = await Promise.all([import('../internal/service/compose'), import('../internal/storage')]);
        const { connection, close } = await compose(config, { only: 'database', database: 'as-is' });
        try {
          const applied = await migrate(connection);
          process.stderr.write(
            applied.length > 0 ? `applied ${applied.length} migration(s): ${applied.join(', ')}\n` : 'the database is up to date\n',
          );
        } finally {
          await close();
        }
      } catch (err) {
        fail(err, globals);
      }
    });
}
