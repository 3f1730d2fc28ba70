import type { FastifyInstance } from 'fastify';

/**
 * Flipt's `?pretty` (or `Accept: application/json+pretty`): indented JSON written without
 * EmitDefaultValues, so zero-valued fields ("", 0, false, [], {}) disappear.
 */
export function installPretty(scope: FastifyInstance): void {
  scope.addHook('preSerialization', async (request, reply, payload) => {
    const query = request.query as Record<string, unknown> | undefined;
    const wanted = (query && 'pretty' in query) || request.headers.accept?.includes('application/json+pretty');
    if (wanted) reply.serializer((value: unknown) => JSON.stringify(withoutZeroValues(value), null, 2));
    return payload;
  });
}

function isZero(value: unknown): boolean {
  if (value === '' || value === 0 || value === false || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

export function withoutZeroValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeroValues);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const cleaned = withoutZeroValues(v);
    if (!isZero(cleaned)) out[key] = cleaned;
  }
  return out;
}
