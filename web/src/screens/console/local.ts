import { flagFromJson, rolloutFromJson, ruleFromJson, segmentFromJson, segmentKeysFromJson } from '../../../../internal/wire/decode';
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

/**
 * The path to an answer. The server says *what* a flag answered; to say *why*, the console
 * reads the flag, its rules or rollouts and the segments they use through the public API, and
 * runs Pennon's own evaluator (internal/evaluation, the code the server runs, bundled into the
 * dashboard) on them with a trace, after the conversion of Flipt's JSON into the domain objects
 * that the CLI's HTTP client uses too (internal/wire/decode.ts, also bundled). The server's answer stays the result; the
 * local run is the explanation, and when the two differ (the flag changed between the reads) the
 * screen says so.
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
  for (const r of rules) for (const k of segmentKeysFromJson(r)) keys.add(k);
  for (const r of rollouts) if (r.segment) for (const k of segmentKeysFromJson(r.segment)) keys.add(k);
  const used = await Promise.all([...keys].map((k) => segments.get(ns, k)));

  const compiled = compileNamespace({
    key: ns,
    revision: '',
    flags: [flagFromJson(flag)],
    segments: used.map(segmentFromJson),
    rules: rules.map(ruleFromJson),
    rollouts: rollouts.map(rolloutFromJson),
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
