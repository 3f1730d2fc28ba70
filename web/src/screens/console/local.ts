import type * as core from '../../../../internal/core/types';
import {
  compileNamespace,
  evaluateBoolean,
  evaluateVariant,
  explain,
  newTrace,
  type BooleanResult,
  type CompiledFlag,
  type FlagTrace,
  type VariantResult,
} from '../../../../internal/evaluation';
import { evaluation, type BooleanAnswer, type EvaluationRequest, type VariantAnswer } from '../../api/evaluation';
import { flags } from '../../api/flags';
import { segments } from '../../api/segments';
import type * as wire from '../../api/types';

/**
 * The path to an answer. The server says *what* a flag answered; to say *why*, the console
 * reads the flag, its rules or rollouts and the segments they use through the public API, and
 * runs Pennon's own evaluator (internal/evaluation, the code the server runs, bundled into the
 * dashboard) on them with a trace. The server's answer stays the result; the local run is the
 * explanation, and when the two differ (the flag changed between the reads) the screen says so.
 */

export interface Explanation {
  flag: CompiledFlag;
  trace: FlagTrace;
  result: VariantResult | BooleanResult;
  /** The same words `pennon evaluate` prints. */
  text: string[];
}

/** Reads what the flag's evaluation depends on and evaluates it here, with a trace. */
export async function explainLocally(request: EvaluationRequest): Promise<Explanation> {
  const { namespaceKey: ns, flagKey } = request;
  const flag = await flags.get(ns, flagKey);
  const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const [rules, rollouts] = await Promise.all([
    isBoolean ? Promise.resolve([]) : evaluation.rules(ns, flagKey),
    isBoolean ? evaluation.rollouts(ns, flagKey) : Promise.resolve([]),
  ]);
  const keys = new Set<string>();
  for (const r of rules) for (const k of keysOf(r)) keys.add(k);
  for (const r of rollouts) if (r.segment) for (const k of keysOf(r.segment)) keys.add(k);
  const used = await Promise.all([...keys].map((k) => segments.get(ns, k)));

  const compiled = compileNamespace({
    key: ns,
    revision: '',
    flags: [flagOf(flag)],
    segments: used.map(segmentOf),
    rules: rules.map(ruleOf),
    rollouts: rollouts.map(rolloutOf),
  }).flags.get(flagKey)!;
  const trace = newTrace();
  const result = isBoolean
    ? evaluateBoolean(compiled, request.entityId, request.context, trace)
    : evaluateVariant(compiled, request.entityId, request.context, trace);
  return { flag: compiled, trace, result, text: explain(compiled, trace, result) };
}

/** What differs between the server's answer and the local run ([] when they agree). */
export function disagreements(answer: VariantAnswer | BooleanAnswer, local: VariantResult | BooleanResult): string[] {
  const out: string[] = [];
  const same = (what: string, server: unknown, here: unknown) => {
    if (server !== here) out.push(`${what}: the server answered ${show(server)}, the flag as read now gives ${show(here)}`);
  };
  if ('enabled' in answer) same('enabled', answer.enabled, (local as BooleanResult).enabled);
  else {
    const v = local as VariantResult;
    same('variant', answer.variantKey, v.variantKey);
    same('match', answer.match, v.match);
  }
  same('reason', answer.reason, local.reason);
  same('segments', (answer.segmentKeys ?? []).join(', '), local.segmentKeys.join(', '));
  return out;
}

const show = (v: unknown) => (v === '' ? '(none)' : typeof v === 'string' ? `"${v}"` : String(v));

/* ---- Flipt's JSON → the domain objects the compiler takes ---- */

const micros = (t: string | undefined) => (t ? Date.parse(t) * 1000 || 0 : 0);

/** Flipt's one-or-many segment fields back to a list. */
function keysOf(o: { segmentKey?: string; segmentKeys?: string[] }): string[] {
  return o.segmentKeys?.length ? o.segmentKeys : o.segmentKey ? [o.segmentKey] : [];
}

function variantOf(v: wire.Variant): core.Variant {
  return {
    id: v.id,
    namespaceKey: v.namespaceKey,
    flagKey: v.flagKey,
    key: v.key,
    name: v.name ?? '',
    description: v.description ?? '',
    attachment: v.attachment ?? '',
    createdAt: micros(v.createdAt),
    updatedAt: micros(v.updatedAt),
  };
}

function flagOf(f: wire.Flag): core.Flag {
  return {
    namespaceKey: f.namespaceKey,
    key: f.key,
    name: f.name ?? '',
    description: f.description ?? '',
    enabled: f.enabled === true,
    type: f.type ?? 'VARIANT_FLAG_TYPE',
    variants: (f.variants ?? []).map(variantOf),
    defaultVariant: f.defaultVariant ? variantOf(f.defaultVariant) : null,
    metadata: f.metadata ?? null,
    createdAt: micros(f.createdAt),
    updatedAt: micros(f.updatedAt),
  };
}

function segmentOf(s: wire.Segment): core.Segment {
  return {
    namespaceKey: s.namespaceKey,
    key: s.key,
    name: s.name ?? '',
    description: s.description ?? '',
    matchType: s.matchType ?? 'ALL_MATCH_TYPE',
    constraints: (s.constraints ?? []).map((c) => ({
      id: c.id,
      namespaceKey: c.namespaceKey,
      segmentKey: c.segmentKey,
      // protojson leaves out zero values: an absent type is the unknown one.
      type: c.type ?? 'UNKNOWN_COMPARISON_TYPE',
      property: c.property ?? '',
      operator: c.operator ?? '',
      value: c.value ?? '',
      description: c.description ?? '',
      createdAt: micros(c.createdAt),
      updatedAt: micros(c.updatedAt),
    })),
    createdAt: micros(s.createdAt),
    updatedAt: micros(s.updatedAt),
  };
}

function ruleOf(r: wire.Rule): core.Rule {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    segmentKeys: keysOf(r),
    segmentOperator: r.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
    rank: r.rank,
    distributions: (r.distributions ?? []).map((d) => ({
      id: d.id,
      ruleId: d.ruleId,
      variantId: d.variantId,
      rollout: d.rollout ?? 0,
      createdAt: micros(d.createdAt),
      updatedAt: micros(d.updatedAt),
    })),
    createdAt: micros(r.createdAt),
    updatedAt: micros(r.updatedAt),
  };
}

function rolloutOf(r: wire.Rollout): core.Rollout {
  return {
    id: r.id,
    namespaceKey: r.namespaceKey,
    flagKey: r.flagKey,
    type: r.type ?? 'UNKNOWN_ROLLOUT_TYPE',
    rank: r.rank,
    description: r.description ?? '',
    threshold: r.threshold ? { percentage: r.threshold.percentage ?? 0, value: r.threshold.value === true } : null,
    segment: r.segment
      ? { segmentKeys: keysOf(r.segment), segmentOperator: r.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR', value: r.segment.value === true }
      : null,
    createdAt: micros(r.createdAt),
    updatedAt: micros(r.updatedAt),
  };
}
