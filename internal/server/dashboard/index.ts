import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { dashboardFiles, type DashboardFiles } from './assets';

/**
 * The dashboard (web/) at `/`: index.html and its hashed assets, served by @fastify/static from
 * the directory `assets.ts` finds. One GET route per file (`wildcard: false`), so every other
 * path still reaches the API's routes or Flipt's JSON 404, and the evaluation fast lane, which
 * answers ahead of Fastify, never sees these routes. Files are served pre-compressed (the build
 * writes .br and .gz beside each one).
 */

/**
 * Only our own files: no inline script or style, no framing, no other origin. The API is the
 * same origin, so `connect-src 'self'` is all the dashboard needs.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function setHeaders(reply: FastifyReply, path: string): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', DASHBOARD_CSP);
  reply.header('referrer-policy', 'no-referrer');
  // Everything under assets/ has a content hash in its name, so never changes; index.html (and
  // the icon) must be checked each time so a new version is picked up at once.
  const hashed = /[\\/]assets[\\/]/.test(path);
  reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
}

export async function dashboardRoutes(app: FastifyInstance, logger: Logger, files: DashboardFiles = dashboardFiles()): Promise<void> {
  if ('missing' in files) {
    logger.warn(`the dashboard is not served: ${files.missing}`);
    return;
  }
  await app.register(fastifyStatic, {
    root: files.dir,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    globIgnore: ['**/*.gz', '**/*.br'],
    preCompressed: true,
    cacheControl: false,
    etag: true,
    lastModified: false,
    decorateReply: false,
    setHeaders,
  });
}
