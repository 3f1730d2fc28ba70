import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../wire';

/** Every request body is parsed as JSON, whatever its Content-Type (see internal/wire/json-body.ts). */
export function installJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
