import { Command, CommanderError } from 'commander';
import { auditCommand } from './audit';
import { EXIT } from './common';
import { evaluateCommand } from './evaluate';
import { flagCommand } from './flag';
import { migrateCommand } from './migrate';
import { serveCommand } from './serve';
import { tokenCommand } from './token';
import { configCommand } from './config';
import { VERSION, versionCommand } from './version';

/** `pennon`: one executable, one subcommand per file in this folder. */
export function buildProgram(): Command {
  const program = new Command('pennon')
    .description('Pennon: a self-hosted feature-flag service, wire-compatible with Flipt v1')
    .version(VERSION, '-V, --version')
    .option('--config <path>', 'configuration file (YAML); PENNON_* environment variables override it')
    .option('--verbose', 'show stack traces on errors')
    .showHelpAfterError('(run with --help for usage)')
    // Every command's --help lists --config and --verbose too (set before the commands are added: they inherit it).
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (text, write) => write(suggestNested(program, text)) })
    .exitOverride();
  serveCommand(program);
  migrateCommand(program);
  evaluateCommand(program);
  tokenCommand(program);
  flagCommand(program);
  auditCommand(program);
  configCommand(program);
  versionCommand(program);
  return program;
}

/**
 * Commander suggests only commands of the level it was given: `pennon validate` got "Did you
 * mean evaluate?". A name that is a subcommand one level down is the better suggestion.
 */
function suggestNested(program: Command, text: string): string {
  const unknown = /^error: unknown command '([^']+)'/.exec(text)?.[1];
  if (unknown === undefined) return text;
  const nested = program.commands.flatMap((parent) => parent.commands.filter((c) => c.name() === unknown).map((c) => `${parent.name()} ${c.name()}`));
  if (nested.length === 0) return text;
  return `error: unknown command '${unknown}'\n(Did you mean ${nested.join(' or ')}?)\n`;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      process.exit(err.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
    }
    throw err;
  }
}

// A worker of `serve`'s cluster is given the command line in its environment: its own argv
// depends on how it was started (a single executable is passed its own path twice).
const workerArgs = process.env.PENNON_WORKER_ARGS;
void main(workerArgs === undefined ? process.argv : [process.argv[0], 'pennon', ...(JSON.parse(workerArgs) as string[])]);
