/**
 * The built dashboard's files, base64, keyed by their path under dist/web. Running from source
 * (tests, tsx) this stays null and the files are read from dist/web; the bundle replaces this
 * module with the real contents (esbuild.config.mjs, plugin `embed-web`).
 */
export interface EmbeddedWeb {
  /** A digest of every file: names the per-version directory they are written to. */
  digest: string;
  files: Record<string, string>;
}

export const EMBEDDED_WEB: EmbeddedWeb | null = null;
