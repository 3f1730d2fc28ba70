import type { BooleanEvaluationJson, ContextJson, EvaluationReason, EvaluationRequestJson, VariantEvaluationJson } from '../../../internal/wire/types';
import { http, path } from './http';
import { allPages } from './pages';
import type { Rollout, Rule } from './types';

/**
 * Evaluation (`/evaluate/v1`, what every Flipt SDK calls) and the reads the console explains an
 * answer with: a flag's rules or rollouts, through the same public management API as the flags
 * screens (GET only; the rules screens own their writes in rules.ts and rollouts.ts).
 */

/** Flipt's context is map<string, string>. */
export type EvaluationContext = ContextJson;
export type EvaluationRequest = EvaluationRequestJson;
export type { EvaluationReason };
export type VariantAnswer = VariantEvaluationJson;
export type BooleanAnswer = BooleanEvaluationJson;

export const evaluation = {
  variant: (request: EvaluationRequest) => http.post<VariantAnswer>('/evaluate/v1/variant', request),
  boolean: (request: EvaluationRequest) => http.post<BooleanAnswer>('/evaluate/v1/boolean', request),
  /** A variant flag's rules, in rank order. */
  rules: (ns: string, flagKey: string) => allPages<Rule, 'rules'>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/rules`, 'rules'),
  /** A boolean flag's rollouts, in rank order (Flipt names the list `rules`). */
  rollouts: (ns: string, flagKey: string) => allPages<Rollout, 'rules'>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/rollouts`, 'rules'),
};
