import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../internal/config';
import { configFrom, EXIT, fail, type GlobalOptions } from './common';

interface MigrateOptions {
  fromFlipt?: string;
  drop?: boolean;
  verify?: boolean;
  entities: number;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new InvalidArgumentError(`"${value}" is not a whole number from 1 to 1,000,000`);
  return n;
}

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (back up the database first); with --from-flipt, copy a Flipt v1 database into Pennon\'s')
    .option('--from-flipt <url>', "a Flipt v1 database to copy (its db.url: file:…, postgres://…, mysql://…, cockroach://…); it is only read")
    .option('--drop', "replace what Pennon's database holds (refused otherwise when it is not empty)")
    .option('--verify', "evaluate every flag on Flipt's data and on the copy, and report any difference")
    .option('--entities <n>', 'entity ids per flag and context for --verify', positiveInt, 1000)
    .action(async (options: MigrateOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { config } = await configFrom(globals);
        if (options.fromFlipt !== undefined) return await fromFlipt(options.fromFlipt, config, options);
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

async function fromFlipt(url: string, config: Config, options: MigrateOptions): Promise<void> {
  const [{ migrateFromFlipt }, { systemClock }, { auditSinkSelections }] = await Promise.all([
    import('../internal/service/flipt-migration'),
    import('../internal/core'),
    import('../internal/audit/selection'),
  ]);
  const migration = { drop: options.drop === true, verify: options.verify === true, entities: options.entities };
  const report = await migrateFromFlipt(url, config.db, systemClock(), migration, auditSinkSelections(config.audit));
  const counts = Object.entries(report.counts).map(([kind, n]) => `${n} ${kind}`).join(', ');
  process.stdout.write(`copied from Flipt (schema version ${report.sourceSchemaVersion ?? 'unknown'}): ${counts}\n`);
  if (!report.verification) return;
  const { evaluations, differences } = report.verification;
  if (differences.length === 0) {
    process.stdout.write(`verified: ${evaluations} evaluations on Flipt's data and on the copy, no difference\n`);
    return;
  }
  for (const d of differences) {
    process.stdout.write(`difference: ${d.namespace}/${d.flag} entity ${d.entityId} context ${JSON.stringify(d.context)}: Flipt's data ${d.source}, the copy ${d.target}\n`);
  }
  process.stderr.write(`verification failed: ${differences.length} difference(s) in ${evaluations} evaluations\n`);
  process.exit(EXIT.FAILURE);
}
