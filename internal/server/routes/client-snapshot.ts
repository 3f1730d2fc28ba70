import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CompiledFlag, CompiledNamespace, CompiledSegment } from '../../evaluation';
import { float32, timestamp } from '../../wire';
import { serve } from '../route-table';
import type { FlagSources } from '../sources';

/**
 * The client-side SDKs' snapshot (`flipt-client-js` and friends): a namespace's flags in
 * Flipt's `EvaluationNamespaceSnapshot` shape, with an unquoted SHA-1 ETag of the namespace
 * revision, 304 on a matching If-None-Match (ETag repeated). Each rule is emitted once (Flipt
 * v1 repeats a rule once per segment). The JSON is built once per snapshot and version gate.
 */

const MATCH = { ALL_MATCH_TYPE: 'ALL_SEGMENT_MATCH_TYPE', ANY_MATCH_TYPE: 'ANY_SEGMENT_MATCH_TYPE' } as const;

/** `x-flipt-accept-server-version` gates: below 1.38.0 no ENTITY_ID constraints, below 1.47.0 no default variant. */
function gateOf(header: string | undefined): { entityId: boolean; defaultVariant: boolean; key: string } {
  const [major = 1, minor = 37] = (header ?? '1.37.1').replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10));
  const atLeast = (ma: number, mi: number) => major > ma || (major === ma && minor >= mi);
  const entityId = atLeast(1, 38);
  const defaultVariant = atLeast(1, 47);
  return { entityId, defaultVariant, key: `${entityId}:${defaultVariant}` };
}

function segmentJson(s: CompiledSegment, gate: { entityId: boolean }) {
  return {
    key: s.key,
    name: '',
    description: '',
    matchType: MATCH[s.matchType],
    constraints: s.constraints.map((c) => ({
      id: c.id,
      type:
        c.type === 'ENTITY_ID_COMPARISON_TYPE' && !gate.entityId
          ? 'UNKNOWN_CONSTRAINT_COMPARISON_TYPE'
          : c.type.replace('_COMPARISON_TYPE', '_CONSTRAINT_COMPARISON_TYPE'),
      property: c.property,
      operator: c.operator,
      value: c.value,
    })),
  };
}

function flagJson(f: CompiledFlag, gate: ReturnType<typeof gateOf>) {
  const isVariant = f.type === 'VARIANT_FLAG_TYPE';
  return {
    key: f.key,
    name: f.name,
    description: f.description,
    enabled: f.enabled,
    type: f.type,
    createdAt: timestamp(f.createdAt),
    updatedAt: timestamp(f.updatedAt),
    rules: isVariant
      ? f.rules.map((r) => ({
          id: r.id,
          segments: r.segments.map((s) => segmentJson(s, gate)),
          rank: r.rank,
          segmentOperator: r.segmentOperator,
          distributions: r.distributions.map((d) => ({
            id: '',
            ruleId: '',
            variantId: d.variantId,
            variantKey: d.variantKey,
            variantAttachment: d.variantAttachment,
            rollout: float32(d.rollout),
          })),
        }))
      : [],
    rollouts: isVariant
      ? []
      : f.rollouts.map((r) => ({
          type: r.type,
          rank: r.rank,
          ...(r.threshold && { threshold: { percentage: float32(r.threshold.percentage), value: r.threshold.value } }),
          ...(r.segment && {
            segment: {
              value: r.segment.value,
              segmentOperator: r.segment.segmentOperator,
              segments: r.segment.segments.map((s) => segmentJson(s, gate)),
            },
          }),
        })),
    ...(isVariant && f.defaultVariant && gate.defaultVariant && { defaultVariant: { ...f.defaultVariant } }),
  };
}

const documents = new WeakMap<CompiledNamespace, Map<string, string>>();

export function snapshotDocument(snapshot: CompiledNamespace, acceptVersion: string | undefined): string {
  const gate = gateOf(acceptVersion);
  let byGate = documents.get(snapshot);
  if (!byGate) documents.set(snapshot, (byGate = new Map()));
  let doc = byGate.get(gate.key);
  if (doc === undefined) {
    doc = JSON.stringify({ namespace: { key: snapshot.key }, flags: snapshot.ordered.map((f) => flagJson(f, gate)) });
    byGate.set(gate.key, doc);
  }
  return doc;
}

export function clientSnapshotRoutes(app: FastifyInstance, sources: FlagSources): void {
  serve<{ Params: { key: string } }>(app, 'EvaluationSnapshotNamespace', async (request, reply) => {
    const source = sources.of(request.raw);
    const snapshot = await source.snapshots.get(request.params.key);
    // A namespace that does not exist has no version, so no ETag (as Flipt's SQL store).
    if (snapshot.revision !== '') {
      // Environments on one repository share commits: the name keeps their ETags apart.
      const etag = createHash('sha1').update(source.name === '' ? snapshot.revision : `${source.name}\n${snapshot.revision}`).digest('hex');
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    }
    const accept = request.headers['x-flipt-accept-server-version'];
    return reply.type('application/json').send(snapshotDocument(snapshot, Array.isArray(accept) ? accept[0] : accept));
  });
}
