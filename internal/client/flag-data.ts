import type { NamespaceData } from '../core';
import {
  flagFromJson,
  rolloutFromJson,
  ruleFromJson,
  segmentFromJson,
  type FlagJson,
  type Received,
  type RolloutListJson,
  type RuleListJson,
  type SegmentListJson,
} from '../wire';

/**
 * One flag of a remote namespace, with the segments it uses, as evaluation data: read back
 * from the management API (Pennon's or Flipt's), so that `pennon evaluate --address` explains
 * a remote flag with the same evaluator. `api`: an HttpApi.
 */
export async function fetchFlagData(api: { get<T>(path: string): Promise<T> }, ns: string, flagKey: string): Promise<NamespaceData> {
  const base = `/api/v1/namespaces/${encodeURIComponent(ns)}`;
  const flag = flagFromJson(await api.get<Received<FlagJson>>(`${base}/flags/${encodeURIComponent(flagKey)}`));
  const none = { rules: [] };
  const [rules, rollouts, segments] = await Promise.all([
    flag.type === 'VARIANT_FLAG_TYPE' ? api.get<Received<RuleListJson>>(`${base}/flags/${encodeURIComponent(flagKey)}/rules`) : Promise.resolve(none),
    flag.type === 'BOOLEAN_FLAG_TYPE' ? api.get<Received<RolloutListJson>>(`${base}/flags/${encodeURIComponent(flagKey)}/rollouts`) : Promise.resolve(none),
    api.get<Received<SegmentListJson>>(`${base}/segments`),
  ]);
  return {
    key: ns,
    revision: '',
    flags: [flag],
    segments: (segments.segments ?? []).map((s) => segmentFromJson(s ?? {})),
    rules: flag.type === 'VARIANT_FLAG_TYPE' ? (rules.rules ?? []).map((r) => ruleFromJson(r ?? {})) : [],
    rollouts: flag.type === 'BOOLEAN_FLAG_TYPE' ? (rollouts.rules ?? []).map((r) => rolloutFromJson(r ?? {})) : [],
  };
}
