/** Replaced at build time by esbuild (`define`); "dev" when run from source. */
declare const __PENNON_VERSION__: string | undefined;
declare const __PENNON_COMMIT__: string | undefined;
declare const __PENNON_BUILD_DATE__: string | undefined;
export const VERSION: string = typeof __PENNON_VERSION__ === 'string' ? __PENNON_VERSION__ : 'dev';
export const COMMIT: string = typeof __PENNON_COMMIT__ === 'string' ? __PENNON_COMMIT__ : '';
export const BUILD_DATE: string = typeof __PENNON_BUILD_DATE__ === 'string' ? __PENNON_BUILD_DATE__ : '';

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
