import type { DbConfig } from '../config';
import { PennonError, isPennonError, type ErrorKind } from '../core';
import type { BulkExportOptions, BulkImportOptions, BulkImportResult } from '../ext';
import type { FlagFile, SnapshotPage } from '../git';
import type { Change } from '../storage';

/**
 * What the server's thread and a bulk thread (bulk-worker.ts) say to each other. A thread does
 * one job, on a connection of its own, and ends. Errors cross as plain data and become the same
 * PennonError kinds on the server's side, so a client reads them as it would in-process.
 */

export type BulkJob =
  | { kind: 'import'; db: DbConfig; options: BulkImportOptions }
  | { kind: 'export'; db: DbConfig; options: BulkExportOptions }
  | { kind: 'git-snapshot'; files: FlagFile[]; commit: string; committedAt: number };

/** Import: after the job, the body's chunks in order, then `end`. */
export type BodyMessage = { chunk: Uint8Array } | { end: true };

export type ImportReply = { ok: true; result: BulkImportResult; changes: Change[] } | { ok: false; error: ThreadError };

/** Export, thread to server: the text in chunks, then `end` (or an error, which ends it too). */
export type ExportMessage = { chunk: Uint8Array } | { end: true } | { error: ThreadError };

/** Export and Git snapshot, server to thread: room for one more chunk or page (the thread runs ahead by CREDITS). */
export interface MoreMessage {
  more: true;
}

/** Chunks (pages) a thread may send before the server has taken any. */
export const CREDITS = 2;

/**
 * Git snapshot, thread to server: the commit's namespaces in pages, then `end`; or an error,
 * which ends it — a bad flag file's with the file and what is wrong with it (FlagFileError).
 */
export type GitSnapshotMessage = { page: SnapshotPage } | { end: true } | { error: ThreadError; file?: string; detail?: string };

export interface ThreadError {
  /** The PennonError's kind; null for any other error. */
  kind: ErrorKind | null;
  message: string;
  name: string;
  stack: string | undefined;
  /** The driver's code behind it, for the error log (ECONNREFUSED, SQLITE_BUSY, …). */
  code: string | number | undefined;
}

/** A thread's error as plain data (what postMessage can carry). */
export function threadError(err: unknown): ThreadError {
  const error = err instanceof Error ? err : new Error(String(err));
  const cause = isPennonError(error) ? (error.cause as { code?: unknown } | undefined) : (error as { code?: unknown });
  const code = typeof cause?.code === 'string' || typeof cause?.code === 'number' ? cause.code : undefined;
  return { kind: isPennonError(error) ? error.kind : null, message: error.message, name: error.name, stack: error.stack, code };
}

/** The same error on the server's side: its kind and words, the thread's stack and code as its cause. */
export function errorFrom(error: ThreadError): Error {
  const cause = Object.assign(new Error(error.message), { name: error.name, stack: error.stack, code: error.code });
  return new PennonError(error.kind ?? 'internal', error.message, { cause });
}

/** Why a thread failed without answering (its own error event), as a PennonError. */
export function threadFailure(err: Error & { code?: string }, what: 'import' | 'export' | 'Git snapshot', advice: string): PennonError {
  return err.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? new PennonError('too_large', `the ${what} needs more memory than its thread may use: ${advice}`, { cause: err })
    : new PennonError('internal', `the ${what} thread failed: ${err.message}`, { cause: err });
}
