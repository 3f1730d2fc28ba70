import { stringify } from 'yaml';
import type { Flag as StoredFlag, Namespace } from '../core';
import type { Encoding, Flag } from './document';
import { ALL, consistently, documentHead, exportFlags, exportSegments, namespacesToExport, type ExportOptions, type ExportSource } from './exporter';
import { YAML_LAYOUT } from './encode';
import { byBytes, goMarshal } from './json';

/**
 * The export written as it is read: the same text `encodeDocuments(exportDocuments(…))` gives,
 * byte for byte, handed to `sink` a page of flags at a time, so neither the documents nor their
 * text are ever whole in memory (100,000 flags of ten rules are ~190 MB of YAML). Flags are read
 * `flagsPerRead` at a time in their list order; `sortByKey` reads the flags (without their rules)
 * whole to sort them.
 */

/** Receives the text in order; a returned promise holds the export until it settles (backpressure). */
export type TextSink = (text: string) => void | Promise<void>;

export interface StreamExportOptions extends ExportOptions {
  /** Flags read per list call; 0 reads them all at once (a source that cannot page cheaply, as HTTP). */
  flagsPerRead?: number;
}

const FLAGS_PER_READ = 500;

/** The bulk export route's options: the namespaces (null: every one), the order, the encoding. */
export interface BulkExportOptions {
  namespaces: string[] | null;
  sortByKey: boolean;
  encoding: Encoding;
}

/** The bulk export route's exporter: the text as UTF-8 chunks, pulled (a slow reader holds the export). */
export type BulkExporter = (options: BulkExportOptions) => AsyncIterable<Uint8Array>;

export function streamOptions(options: BulkExportOptions): StreamExportOptions {
  return options.namespaces === null ? { allNamespaces: true, sortByKey: options.sortByKey } : { namespaces: options.namespaces, sortByKey: options.sortByKey };
}

export async function exportText(source: ExportSource, options: StreamExportOptions, encoding: Encoding, sink: TextSink): Promise<void> {
  await consistently(source, async (s) => {
    const namespaces = await namespacesToExport(s, options);
    for (const [i, ns] of namespaces.entries()) {
      if (i > 0 && encoding === 'yaml') await sink('---\n');
      await writeNamespace(s, ns, i === 0, options, encoding === 'json' ? JSON_PIECES : YAML_PIECES, sink);
    }
  });
}

/** How one encoding writes a document in pieces. */
interface Pieces {
  /** The document's fields before its lists. */
  head(fields: object): string;
  /** A list's opening, written before its first item. */
  open(key: 'flags' | 'segments'): string;
  /** Items of a list; `first` when nothing of the list was written before. */
  items(key: 'flags' | 'segments', items: object[], first: boolean): string;
  close(key: 'flags' | 'segments'): string;
  end(): string;
}

const YAML_PIECES: Pieces = {
  head: (fields) => stringify(fields, YAML_LAYOUT),
  open: (key) => `${key}:\n`,
  // A list laid out under its key, without the key's line: what the whole document holds there.
  items: (key, items) => stringify({ [key]: items }, YAML_LAYOUT).slice(key.length + 2),
  close: () => '',
  end: () => '',
};

const JSON_PIECES: Pieces = {
  // The head's object without its closing brace: the lists follow inside it.
  head: (fields) => goMarshal(fields).slice(0, -1),
  open: (key) => `,"${key}":[`,
  items: (_key, items, first) => (first ? '' : ',') + items.map(goMarshal).join(','),
  close: () => ']',
  end: () => '}\n',
};

async function writeNamespace(source: ExportSource, ns: Namespace, first: boolean, options: StreamExportOptions, pieces: Pieces, sink: TextSink): Promise<void> {
  await sink(pieces.head(documentHead(ns, first)));
  let written = 0;
  for await (const flags of flagPages(source, ns.key, options)) {
    if (flags.length === 0) continue;
    await sink((written === 0 ? pieces.open('flags') : '') + pieces.items('flags', flags, written === 0));
    written += flags.length;
  }
  if (written > 0) await sink(pieces.close('flags'));
  const segments = await exportSegments(source, ns.key, options);
  if (segments.length > 0) await sink(pieces.open('segments') + pieces.items('segments', segments, true) + pieces.close('segments'));
  await sink(pieces.end());
}

/** The namespace's flags as documents, a page at a time, in the export's order. */
async function* flagPages(source: ExportSource, ns: string, options: StreamExportOptions): AsyncGenerator<Flag[]> {
  const perRead = options.flagsPerRead ?? FLAGS_PER_READ;
  const complete = (stored: StoredFlag[]) => exportFlags(source, ns, stored, options);
  if (options.sortByKey || perRead === 0) {
    const all = (await source.listFlags(ns, ALL)).items;
    if (options.sortByKey) all.sort((a, b) => byBytes(a.key, b.key));
    const step = perRead === 0 ? FLAGS_PER_READ : perRead;
    for (let i = 0; i < all.length; i += step) yield complete(all.slice(i, i + step));
    return;
  }
  for (let offset = 0; ; offset += perRead) {
    const page = await source.listFlags(ns, { limit: perRead, offset });
    yield complete(page.items);
    if (page.items.length < perRead) return;
  }
}
