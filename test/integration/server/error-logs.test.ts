import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { useServer } from '../../support/server';

/** Every error response carries X-Request-Id, and the log line about it carries the same id. */
describe('request ids in error responses and logs', () => {
  const lines: Record<string, unknown>[] = [];
  const service = useServer({}, { logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) });

  it.each([
    ['GET', '/api/v1/flags/missing', undefined, 404],
    ['POST', '/api/v1/flags', '{"key":', 400],
    ['POST', '/evaluate/v1/variant', '{"flagKey":"missing","entityId":"e"}', 404], // the fast lane
    ['GET', '/no/such/route', undefined, 404],
  ])('%s %s', async (method, path, body, status) => {
    const res = await fetch(service.url + path, { method, body, headers: body ? { 'content-type': 'application/json' } : {} });
    expect(res.status).toBe(status);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    // Written as the error is answered; wait for it rather than assume it came before the response.
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.reqId === id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(lines.some((l) => l.reqId === id)).toBe(true);
  });
});
