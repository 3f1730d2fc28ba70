import { PennonError, type ErrorKind } from '../core';

/** Where in a stream a problem is: enough for a person (or Git storage's log) to find it. */
export interface ExtLocation {
  /** 1-based position of the document in the stream. */
  document: number;
  namespace?: string;
  flag?: string;
  segment?: string;
  /** The field's path inside the flag, segment or document, e.g. `rules[0].segment`. */
  field?: string;
  /** 1-based line in the YAML text, when the parser knows it. */
  line?: number;
}

export function describeLocation(at: ExtLocation): string {
  const parts = [`document ${at.document}`];
  if (at.namespace !== undefined) parts.push(`namespace ${JSON.stringify(at.namespace)}`);
  if (at.flag !== undefined) parts.push(`flag ${JSON.stringify(at.flag)}`);
  if (at.segment !== undefined) parts.push(`segment ${JSON.stringify(at.segment)}`);
  if (at.field !== undefined) parts.push(`field ${at.field}`);
  if (at.line !== undefined) parts.push(`line ${at.line}`);
  return parts.join(', ');
}

/** Something in a document that is imported all the same, but probably not what was meant: an unknown (misspelt) key. */
export interface ExtWarning {
  message: string;
  location: ExtLocation;
}

export function describeWarning(warning: ExtWarning): string {
  return `${warning.message} (${describeLocation(warning.location)})`;
}

/**
 * The warnings as lines, at most `limit` of them in full; the rest summed up by message, so a
 * file with the same slip in every flag says so in two lines instead of ten thousand.
 */
export function warningLines(warnings: readonly ExtWarning[], limit = 20): string[] {
  const lines = warnings.slice(0, limit).map(describeWarning);
  if (warnings.length <= limit) return lines;
  const rest = new Map<string, number>();
  for (const w of warnings.slice(limit)) rest.set(w.message, (rest.get(w.message) ?? 0) + 1);
  const kinds = [...rest].sort((a, b) => b[1] - a[1]);
  const counts = kinds.slice(0, 10).map(([message, n]) => `${message} ×${n}`).join('; ');
  return [...lines, `… and ${warnings.length - limit} more: ${counts}${kinds.length > 10 ? '; …' : ''}`];
}

/**
 * A document that cannot be imported. `reason` is Flipt's own text where Flipt has one
 * (`unsupported version: 5.0`, `flag.type is supported in version >=1.1, found 1.0`, …), so
 * the message starts with exactly what Flipt prints and then says where.
 */
export class ExtError extends PennonError {
  constructor(
    readonly reason: string,
    readonly location: ExtLocation | null,
    kind: ErrorKind = 'invalid',
    /** For a parse error: the line and a caret under the column (excerpt.ts), on lines of their own. */
    readonly excerpt = '',
  ) {
    super(kind, `${location ? `${reason} (${describeLocation(location)})` : reason}${excerpt === '' ? '' : `\n${excerpt}`}`);
    this.name = 'ExtError';
  }
}

/** Counts of what an import creates (or created), per kind of object. */
export interface ImportCounts {
  namespaces: number;
  flags: number;
  variants: number;
  segments: number;
  constraints: number;
  rules: number;
  distributions: number;
  rollouts: number;
}

export function zeroCounts(): ImportCounts {
  return { namespaces: 0, flags: 0, variants: 0, segments: 0, constraints: 0, rules: 0, distributions: 0, rollouts: 0 };
}

export function totalOf(counts: ImportCounts): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

const SINGULAR: Record<keyof ImportCounts, string> = {
  namespaces: 'namespace',
  flags: 'flag',
  variants: 'variant',
  segments: 'segment',
  constraints: 'constraint',
  rules: 'rule',
  distributions: 'distribution',
  rollouts: 'rollout',
};

/** "1 namespace, 3 flags, 2 variants" (kinds with none left out). */
export function describeCounts(counts: ImportCounts): string {
  const parts = (Object.keys(counts) as (keyof ImportCounts)[])
    .filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${counts[k] === 1 ? SINGULAR[k] : k}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/**
 * An import into a target without transactions (the HTTP API) failed part-way: what was
 * created stays. The message says how much, so the user knows what to clean up.
 */
export class PartialImportError extends PennonError {
  constructor(
    readonly created: ImportCounts,
    /** Namespaces --drop had deleted before the failure. */
    readonly dropped: string[],
    override readonly cause: unknown,
  ) {
    const n = totalOf(created);
    const what = n > 0 ? ` (${describeCounts(created)})` : '';
    const drop = dropped.length > 0 ? `; --drop had deleted ${dropped.map((k) => JSON.stringify(k)).join(', ')}` : '';
    const message = cause instanceof Error ? cause.message : String(cause);
    super(
      cause instanceof PennonError ? cause.kind : 'internal',
      `${n} ${n === 1 ? 'object was' : 'objects were'} created before the failure and ${n === 1 ? 'was' : 'were'} not rolled back${what}${drop}: ${message}`,
      { cause },
    );
    this.name = 'PartialImportError';
  }
}
