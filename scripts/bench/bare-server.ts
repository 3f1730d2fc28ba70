import { createServer } from 'node:http';
import Fastify from 'fastify';

/**
 * The baselines: routes that parse the request's JSON and answer a response of the same shape
 * and size as Pennon's for the same path, doing nothing else. BARE=fastify (default) serves them
 * as Fastify JSON routes, BARE=http on a raw node:http server. Pennon is measured against both in
 * the same run.
 */
const variant = (flagKey: string) => ({
  match: true,
  segmentKeys: ['segment-9'],
  reason: 'MATCH_EVALUATION_REASON',
  variantKey: 'treatment',
  variantAttachment: '{"color":"blue"}',
  requestId: '4d2c8f3e-5b1a-4c7e-9f0d-2a6b8c1e3f57',
  requestDurationMillis: 0.05,
  timestamp: '2026-01-01T00:00:00.000Z',
  flagKey,
});
const boolean = (flagKey: string) => ({
  enabled: true,
  reason: 'MATCH_EVALUATION_REASON',
  requestId: '4d2c8f3e-5b1a-4c7e-9f0d-2a6b8c1e3f57',
  requestDurationMillis: 0.05,
  timestamp: '2026-01-01T00:00:00.000Z',
  flagKey,
  segmentKeys: ['segment-9'],
});
const ofrep = (key: string) => ({ key, reason: 'TARGETING_MATCH', variant: 'treatment', value: 'treatment', metadata: { attachment: '{"color":"blue"}' } });

type Body = { flagKey?: string; requests?: { flagKey?: string }[] };

/** The answer for a path, or null (404). */
function answer(path: string, body: Body): unknown {
  if (path === '/evaluate/v1/variant') return variant(body.flagKey ?? '');
  if (path === '/evaluate/v1/boolean') return boolean(body.flagKey ?? '');
  if (path === '/evaluate/v1/batch') {
    return {
      requestId: '4d2c8f3e-5b1a-4c7e-9f0d-2a6b8c1e3f57',
      responses: (body.requests ?? []).map((r) => ({ type: 'VARIANT_EVALUATION_RESPONSE_TYPE', variantResponse: variant(r.flagKey ?? '') })),
      requestDurationMillis: 0.05,
    };
  }
  if (path.startsWith('/ofrep/v1/evaluate/flags/')) return ofrep(path.slice('/ofrep/v1/evaluate/flags/'.length));
  return null;
}

const port = Number(process.env.PORT ?? 0);
if (process.env.BARE === 'http') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const result = answer(req.url ?? '', JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body);
      const text = JSON.stringify(result);
      res.writeHead(result === null ? 404 : 200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}\n`);
  });
} else {
  const app = Fastify({ logger: false });
  for (const path of ['/evaluate/v1/variant', '/evaluate/v1/boolean', '/evaluate/v1/batch', '/ofrep/v1/evaluate/flags/:key']) {
    app.post(path, async (request) => answer(request.url, request.body as Body));
  }
  app.listen({ host: '127.0.0.1', port }).then((address) => process.stdout.write(`${address}\n`));
}
