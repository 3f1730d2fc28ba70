import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_NAMESPACE, PennonError, invalidField, readOnly } from '../../core';
import { warningLines, type BulkImporter } from '../../ext';
import { Fields } from '../../wire';
import { readChunks } from '../body-chunks';
import { errorHandler } from '../errors';
import type { RequestErrorLog } from '../error-log';
import { auditOriginOf } from '../audit-origin';
import { serve } from '../route-table';

/**
 * Pennon's own bulk import (Flipt has no such route): `POST /api/v1/namespaces/{ns}/import`
 * and `POST /api/v1/import` take Flipt's document stream — YAML, or JSON (one object or one per
 * line) — as the body and import it as `pennon flag import` does in-process: decoded and checked
 * whole, then written in one transaction, so it lands completely or not at all. Query:
 * `drop` (whole-instance route only), `skipExisting`, `format` (`yaml` | `json`; else the
 * Content-Type says, YAML by default). Management surface: a namespace-scoped token may import
 * into its own namespace and never use the whole-instance route. Bodies up to
 * `server.max_import_bytes`, kept as they arrived in this scope of their own.
 */

export interface ImportRouteDeps {
  importer: BulkImporter;
  /** `storage.read_only`, or flags come from Git: refused with Flipt's read-only error. */
  readOnly: boolean;
  maxBytes: number;
  errors: RequestErrorLog;
}

/** How many warning lines an answer carries (the rest summed up in one more). */
const WARNING_LINES = 100;

export function importRoutes(app: FastifyInstance, deps: ImportRouteDeps): void {
  app.removeAllContentTypeParsers();
  // The body is kept as the chunks it arrived in: joining and decoding 17 MB (10,000 flags) took
  // ~200 ms of this thread; the importer does it where the import runs.
  const tooLarge = () => new PennonError('too_large', `the import is larger than server.max_import_bytes (${deps.maxBytes} bytes)`);
  app.addContentTypeParser('*', { bodyLimit: deps.maxBytes }, (_request, payload, done) => {
    payload.once('error', (err) => done(err, undefined));
    readChunks(payload, deps.maxBytes, (chunks) => done(null, chunks), () => done(tooLarge(), undefined));
  });
  // A stream over the limit is told which setting it met (then answered as every error is).
  const answer = errorHandler(deps.errors);
  app.setErrorHandler((error: FastifyError, request, reply) => answer(error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? tooLarge() : error, request, reply));

  const handle = async (request: FastifyRequest, namespace: string | null) => {
    if (deps.readOnly) throw readOnly();
    const query = Fields.query(request.query);
    const format = query.str('format');
    if (format !== '' && format !== 'yaml' && format !== 'json') throw invalidField('format', 'must be yaml or json');
    const type = String(request.headers['content-type'] ?? '');
    const result = await deps.importer(Array.isArray(request.body) ? (request.body as Buffer[]) : [], {
      namespace,
      drop: query.bool('drop'),
      skipExisting: query.bool('skipExisting'),
      encoding: format === 'json' || (format === '' && type.includes('json')) ? 'json' : 'yaml',
    }, auditOriginOf(request));
    // Logged here, not only as the request's completion: a client gone before the answer still
    // had its import committed, and no "request completed" follows an answer nobody reads.
    request.log.info({ namespace, created: result.created, dropped: result.dropped }, 'import committed');
    return { created: result.created, skipped: result.skipped, dropped: result.dropped, warnings: warningLines(result.warnings, WARNING_LINES) };
  };

  const named = (request: FastifyRequest) => (request.params as { namespaceKey: string }).namespaceKey || DEFAULT_NAMESPACE;
  serve(app, 'ImportNamespace', (request) => handle(request, named(request)), { bodyLimit: deps.maxBytes });
  // No namespace: a scoped token is refused here (the gate fails closed).
  serve(app, 'ImportAll', (request) => handle(request, null), { bodyLimit: deps.maxBytes });
}
