/** Replaced at build time by esbuild (`define`); "dev" when run from source. */
declare const __PENNON_VERSION__: string | undefined;
declare const __PENNON_COMMIT__: string | undefined;
declare const __PENNON_BUILD_DATE__: string | undefined;

export const VERSION: string = typeof __PENNON_VERSION__ === 'string' ? __PENNON_VERSION__ : 'dev';
export const COMMIT: string = typeof __PENNON_COMMIT__ === 'string' ? __PENNON_COMMIT__ : '';
export const BUILD_DATE: string = typeof __PENNON_BUILD_DATE__ === 'string' ? __PENNON_BUILD_DATE__ : '';
/** A release is a tagged version (no "-dev"/"-rc" suffix), as Flipt decides `isRelease`. */
export const IS_RELEASE: boolean = /^\d+\.\d+\.\d+$/.test(VERSION);
