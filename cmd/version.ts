import { BUILD_DATE, COMMIT, VERSION } from '../internal/core/build-info';

export { VERSION, COMMIT, BUILD_DATE };

/** `pennon version`: the build, for bug reports and scripts. */
export function versionCommand(program: import('commander').Command): void {
  program
    .command('version')
    .description('print the version and build information')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => {
      const info = { version: VERSION, commit: COMMIT, buildDate: BUILD_DATE, node: process.versions.node, os: process.platform, arch: process.arch };
      if (options.json) process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
      else process.stdout.write(`pennon ${VERSION}${COMMIT ? ` (${COMMIT})` : ''} built ${BUILD_DATE || 'from source'}, node ${info.node} ${info.os}/${info.arch}\n`);
    });
}
