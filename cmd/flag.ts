import { createWriteStream, readFileSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { BulkRequest } from '../internal/client';
import type { ExportSource, ImportResult, ImportTarget } from '../internal/ext';
import { addressOption, configFrom, fail, outputFileOption, type GlobalOptions } from './common';
import { VERSION } from './version';

/**
 * `pennon flag export` / `pennon flag import`: Flipt's document format (version 1.4), against
 * the configured database (one transaction: all or nothing; an export reads one consistent
 * state, written as it is read) or a running server (--address: an import goes to its bulk
 * import route, one transaction there too; a server without that route gets one request per
 * object, validated whole first but not atomic; an export comes from its bulk export route, or
 * its lists). Data on stdout, messages on stderr.
 */

interface RemoteOptions {
  address?: string;
  token?: string;
}

type Encoding = 'yaml' | 'json';

function namespaceList(value: string, previous: string[] | undefined): string[] {
  const keys = value.split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (keys.length === 0) throw new InvalidArgumentError('give a namespace key');
  return [...(previous ?? []), ...keys];
}

function encodingOfPath(path: string | undefined, fallback: Encoding): Encoding {
  const ext = path ? extname(path).toLowerCase() : '';
  if (ext === '.json') return 'json';
  if (ext === '.yml' || ext === '.yaml') return 'yaml';
  return fallback;
}

/**
 * The store to work on, what it is (for messages), and how to let it go. An import may create
 * the database (and migrate it); an export reads an existing one only.
 */
async function target(
  options: RemoteOptions,
  globals: GlobalOptions,
  mode: 'import' | 'export',
): Promise<{ store: ImportTarget & ExportSource; where: string; close: () => Promise<void>; remote: boolean }> {
  if (options.address) {
    const { HttpApi, HttpStore } = await import('../internal/client');
    return { store: new HttpStore(new HttpApi({ address: options.address, token: options.token })), where: options.address, close: async () => undefined, remote: true };
  }
  const { config } = await configFrom(globals);
  const { compose } = await import('../internal/service/compose');
  const { store, connection, close } = await compose(config, { only: 'database', database: mode === 'import' ? 'prepared' : 'existing' });
  return { store, where: connection.describe, close, remote: false };
}

/** "namespace "x" not found" → "… not found in sqlite /path/pennon.db": which database was read. */
function naming(err: unknown, where: string): unknown {
  if ((err as { kind?: string }).kind !== 'not_found' || !(err instanceof Error) || err.message.includes(where)) return err;
  return new Error(`${err.message} in ${where}`, { cause: err });
}

function summary(result: ImportResult): string {
  const parts = Object.entries(result.created)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${n === 1 ? kind.replace(/s$/, '') : kind}`);
  const skipped = result.skipped.flags.length + result.skipped.segments.length;
  return `imported ${parts.length > 0 ? parts.join(', ') : 'nothing'}${skipped > 0 ? `; skipped ${skipped} existing` : ''}${result.dropped.length > 0 ? `; dropped ${result.dropped.join(', ')}` : ''}`;
}

/**
 * `--address`: the export in one request to the server's bulk export route, streamed to `write`;
 * false when the server has no such route (Flipt, or flags in Git), before anything is written.
 */
async function exportInOneRequest(
  options: RemoteOptions,
  request: { namespaces: string[] | null; sortByKey: boolean; encoding: Encoding },
  write: (chunk: Uint8Array) => Promise<void>,
): Promise<boolean> {
  const { HttpApi, isMissingRoute, streamBulkExport } = await import('../internal/client');
  const api = new HttpApi({ address: options.address!, token: options.token });
  try {
    await streamBulkExport(api, request, write);
    return true;
  } catch (err) {
    if (isMissingRoute(err)) return false;
    throw err;
  }
}

/**
 * Where an export goes, written as it is produced (a large export is never whole in memory): a
 * file is written beside its name and renamed into place once complete, so a failed export
 * leaves the file that was there, never half a document; stdout is paced by its reader.
 */
function openOutput(path: string | undefined): { write: (text: string | Uint8Array) => Promise<void>; commit: () => Promise<void>; abandon: () => void } {
  const partial = path ? `${path}.partial-${process.pid}` : null;
  const file = partial ? createWriteStream(partial) : null;
  const stream = file ?? process.stdout;
  const failed = new Promise<never>((_resolve, reject) => stream.once('error', reject));
  failed.catch(() => undefined);
  return {
    write: async (text) => {
      if (!stream.write(text)) await Promise.race([once(stream, 'drain'), failed]);
    },
    commit: async () => {
      if (!file) return;
      await Promise.race([new Promise<void>((resolve) => file.end(resolve)), failed]);
      renameSync(partial!, path!);
    },
    abandon: () => {
      if (!file) return;
      file.destroy();
      rmSync(partial!, { force: true });
    },
  };
}

/**
 * `--address`: the whole stream in one request to the server's bulk import route, written there
 * in one transaction; null when the server has no such route (Flipt), after saying — before
 * anything is written — that the object-by-object import that follows is not atomic.
 */
async function importInOneRequest(options: RemoteOptions, text: string, request: BulkRequest, namespaces: string[]): Promise<(ImportResult & { warnings: string[] }) | null> {
  const { HttpApi, bulkImportPath, hasBulkImport, sendBulkImport } = await import('../internal/client');
  const api = new HttpApi({ address: options.address!, token: options.token });
  const path = bulkImportPath(namespaces, request.drop);
  if (!(await hasBulkImport(api, path))) {
    process.stderr.write(
      `warning: ${api.address} has no bulk import route (a Flipt server, or an older Pennon): importing one object per request, ` +
        'which is NOT atomic — a failure or an interruption leaves what was created so far' +
        `${request.drop ? ', and --drop will have deleted every namespace first' : ''}\n`,
    );
    return null;
  }
  return sendBulkImport(api, path, text, request);
}

/** A progress bar on stderr, only for a terminal and a large import. */
async function progressBar(): Promise<{ update(done: number, total: number): void; stop(): void }> {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar({ stream: process.stderr, format: 'importing [{bar}] {value}/{total} objects', hideCursor: true }, Presets.shades_classic);
  let started = false;
  return {
    update(done, total) {
      if (total < 1000) return;
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}

export function flagCommand(program: Command): void {
  const flag = program.command('flag').description('export and import flags in Flipt\'s document format');

  flag
    .command('export')
    .description('write namespaces as Flipt documents (YAML, or JSON by the file extension)')
    .option('-n, --namespace <keys>', 'namespace(s) to export: repeat or give a comma list (default: default)', namespaceList)
    .addOption(new Option('--all-namespaces', 'export every namespace (a YAML stream, or JSON lines)').conflicts('namespace'))
    .option('--sort-by-key', 'sort namespaces, flags, segments and variants by key')
    .addOption(outputFileOption())
    .addOption(addressOption('export from a running server (e.g. http://localhost:8080) instead of the database'))
    .option('-t, --token <token>', 'client token for --address')
    .action(async (options: RemoteOptions & { namespace?: string[]; allNamespaces?: boolean; sortByKey?: boolean; output?: string }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { exportText, exportHeader } = await import('../internal/ext');
        const encoding = encodingOfPath(options.output, 'yaml');
        const namespaces = options.allNamespaces ? null : (options.namespace ?? ['default']);
        const out = openOutput(options.output);
        try {
          // As Flipt: a file starts with a comment saying what wrote it (import skips it).
          if (options.output) await out.write(exportHeader('Pennon', VERSION));
          if (!(options.address && (await exportInOneRequest(options, { namespaces, sortByKey: options.sortByKey ?? false, encoding }, out.write)))) {
            const { store, where, close, remote } = await target(options, globals, 'export');
            try {
              const scope = namespaces === null ? { allNamespaces: true } : { namespaces };
              // Over HTTP a list is read whole whatever the page asked for: read once.
              await exportText(store, { ...scope, sortByKey: options.sortByKey, flagsPerRead: remote ? 0 : undefined }, encoding, out.write).catch((err: unknown) => {
                throw naming(err, where);
              });
            } finally {
              await close();
            }
          }
          await out.commit();
        } catch (err) {
          out.abandon();
          throw err;
        }
        if (options.output) process.stderr.write(`exported to ${options.output}\n`);
      } catch (err) {
        fail(err, globals);
      }
    });

  flag
    .command('import')
    .description('import Flipt documents (YAML or JSON; versions 1.0–1.4) from a file or stdin (-)')
    .argument('[file]', 'the file to import, or - for stdin', '-')
    .option('--drop', 'delete every namespace (and everything in it) before importing')
    .option('--skip-existing', 'leave flags and segments that already exist as they are')
    .addOption(new Option('--format <format>', 'the encoding of stdin').choices(['yaml', 'json']).default('yaml'))
    .option('--json', 'print what was imported as JSON')
    .addOption(addressOption('import into a running server (e.g. http://localhost:8080) instead of the database'))
    .option('-t, --token <token>', 'client token for --address')
    .action(async (file: string, options: RemoteOptions & { drop?: boolean; skipExisting?: boolean; format: Encoding; json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const { IMPORT_IN_PARTS_FROM, decodeDocuments, decodeInParts, importParts, importStream, namespacesOf, warningLines } = await import('../internal/ext');
        let text: string;
        try {
          text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
        } catch (err) {
          throw new Error(`cannot read ${file === '-' ? 'stdin' : file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
        const encoding = file === '-' ? options.format : encodingOfPath(file, 'yaml');
        const warn = (lines: string[]) => {
          for (const line of lines) process.stderr.write(`warning: ${line}\n`);
        };
        // A large stream is read and written a part at a time, in one transaction (memory holds
        // a part, not the stream); anything smaller, or of another shape, is decoded and checked whole first.
        const parted = text.length >= IMPORT_IN_PARTS_FROM ? decodeInParts(text, { encoding, maxVersion: '1.4' }) : null;
        let whole = parted ? null : decodeDocuments(text, { encoding, maxVersion: '1.4' });
        if (whole) warn(warningLines(whole.warnings));
        if (options.address) {
          const namespaces = namespacesOf(parted ? parted.heads : whole!.documents);
          const bulk = await importInOneRequest(options, text, { encoding, drop: options.drop ?? false, skipExisting: options.skipExisting ?? false }, namespaces);
          if (bulk) {
            if (parted) warn(bulk.warnings);
            const { created, skipped, dropped } = bulk;
            if (options.json) process.stdout.write(`${JSON.stringify({ created, skipped, dropped }, null, 2)}\n`);
            process.stderr.write(`${summary(bulk)} (one transaction)\n`);
            return;
          }
        }
        const { store, close, remote } = await target(options, globals, 'import');
        const bar = await progressBar();
        const importOptions = { drop: options.drop, skipExisting: options.skipExisting, onProgress: (p: { done: number; total: number }) => bar.update(p.done, p.total) };
        let result: ImportResult;
        try {
          if (parted && store.transaction) {
            try {
              result = await importParts(store, parted, importOptions);
            } finally {
              warn(warningLines(parted.warnings));
            }
          } else {
            whole ??= decodeDocuments(text, { encoding, maxVersion: '1.4' });
            if (parted) warn(warningLines(whole.warnings));
            result = await importStream(store, whole, importOptions);
          }
        } finally {
          bar.stop();
          await close();
        }
        if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        process.stderr.write(`${summary(result)}${remote ? '' : ' (one transaction)'}\n`);
      } catch (err) {
        fail(err, globals, (e) => (e instanceof Error && / is not unique\b/.test(e.message) ? 'add --skip-existing to keep what already exists, or --drop to replace everything' : null));
      }
    });
}
