import type { Command } from 'commander';
import { EXIT, type GlobalOptions } from './common';

/** `pennon config validate`: checks a configuration (file and PENNON_* variables), printing every problem. */
export function configCommand(program: Command): void {
  const config = program.command('config').description('work with configuration files');
  config
    .command('validate')
    .description('check the configuration (the --config file, FLIPT_* and PENNON_* variables); print every problem')
    .argument('[file]', 'the file to check (default: --config, else the first default location that exists)')
    .option('--json', 'print the result as JSON (the effective configuration, secrets redacted)')
    .action(async (file: string | undefined, options: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const [{ findConfigFile, loadConfig, redactedConfig, ConfigError }, { auditConfigProblems }] = await Promise.all([import('../internal/config'), import('../internal/audit')]);
      const path = file ?? globals.config ?? process.env.PENNON_CONFIG ?? findConfigFile();
      try {
        const { config, warnings } = loadConfig({ path });
        // The audit sinks' templates and URLs (checked by internal/audit: config/ holds no template parser).
        const audit = auditConfigProblems(config.audit);
        if (audit.length > 0) throw new ConfigError(audit, path ?? 'the defaults and environment');
        if (options.json) process.stdout.write(`${JSON.stringify({ valid: true, warnings, config: redactedConfig(config) }, null, 2)}\n`);
        else {
          for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
          process.stderr.write(`${path ?? 'the defaults and environment'}: valid\n`);
        }
      } catch (err) {
        const problems = (err as { problems?: string[] }).problems;
        if (!problems) throw err;
        if (options.json) process.stdout.write(`${JSON.stringify({ valid: false, problems }, null, 2)}\n`);
        else for (const p of problems) process.stderr.write(`${p}\n`);
        process.exit(EXIT.FAILURE);
      }
    });
}
