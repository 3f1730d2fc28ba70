import type { CredentialConfig, DbConfig, GitStorageConfig } from '../config';
import { PennonError, isPennonError, type AuditOrigin, type AuditQuery, type ErrorKind } from '../core';
import type { BulkExportOptions, BulkImportOptions, BulkImportResult } from '../ext';
import type { FlagFileBytes, SnapshotPage } from '../git';
import type { AuditSinkSelection, Change } from '../storage';

/**
 * What the server's thread and a bulk thread (bulk-worker.ts) say to each other. A thread does
 * one job, on a connection of its own, and ends. Errors cross as plain data and become the same
 * PennonError kinds on the server's side, so a client reads them as it would in-process.
 */

export type BulkJob =
  | { kind: 'import'; db: DbConfig; options: BulkImportOptions; origin?: AuditOrigin; auditSinks: readonly AuditSinkSelection[] }
  | { kind: 'export'; db: DbConfig; options: BulkExportOptions }
  | { kind: 'git-snapshot'; files: FlagFileBytes[]; commit: string; committedAt: number }
  | { kind: 'git-objects'; storage: GitStorageConfig; credential?: CredentialConfig };

/** Import: after the job, the body's chunks in order, then `end`. */
export type BodyMessage = { chunk: Uint8Array } | { end: true };

/** `audited`: the audit events its transaction wrote (announced as the store's own: the deliverer wakes, metrics count). */
export type ImportReply = { ok: true; result: BulkImportResult; changes: Change[]; audited: number } | { ok: false; error: ThreadError };

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

/**
 * Git objects (a storage's fetches and reads, GitObjects), server to thread: one call; the thread
 * lives as long as the repository and answers each call with its id.
 */
export type GitCall = { id: number } & (
  | { op: 'fetch'; args: [] }
  | { op: 'fetchedBefore'; args: [] }
  | { op: 'files'; args: [commit: string, directory: string] }
  | { op: 'committedAt'; args: [commit: string] }
  | { op: 'history'; args: [tip: string, directory: string, query: AuditQuery] }
);

export type GitReply = { id: number; result: unknown } | { id: number; error: ThreadError };

/**
 * Flag files whose bytes can be moved to another thread rather than copied: a view sharing its
 * memory with anything else (Node's pooled small buffers, a slice of a pack) is copied first.
 */
export function movable(files: FlagFileBytes[]): { files: FlagFileBytes[]; transfer: ArrayBuffer[] } {
  const own = files.map(({ path, bytes }) => ({ path, bytes: bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice() }));
  return { files: own, transfer: own.map(({ bytes }) => bytes.buffer as ArrayBuffer) };
}

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
export function threadFailure(err: Error & { code?: string }, what: 'import' | 'export' | 'Git snapshot' | 'Git', advice: string): PennonError {
  return err.code === 'ERR_WORKER_OUT_OF_MEMORY'
    ? new PennonError('too_large', `the ${what} needs more memory than its thread may use: ${advice}`, { cause: err })
    : new PennonError('internal', `the ${what} thread failed: ${err.message}`, { cause: err });
}
