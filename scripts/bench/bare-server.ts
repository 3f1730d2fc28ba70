import Fastify from 'fastify';

/**
 * The baseline: a bare Fastify JSON POST route answering a response of the same shape and
 * size as an evaluation. Pennon's evaluation route is measured against it in the same run.
 */
const app = Fastify({ logger: false });
app.post('/evaluate/v1/variant', async (request) => {
  const body = request.body as { flagKey?: string };
  return {
    match: true,
    segmentKeys: ['segment-9'],
    reason: 'MATCH_EVALUATION_REASON',
    variantKey: 'treatment',
    variantAttachment: '{"color":"blue"}',
    requestId: '4d2c8f3e-5b1a-4c7e-9f0d-2a6b8c1e3f57',
    requestDurationMillis: 0.05,
    timestamp: '2026-01-01T00:00:00.000Z',
    flagKey: body.flagKey ?? '',
  };
});
app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) }).then((address) => {
  process.stdout.write(`${address}\n`);
});
