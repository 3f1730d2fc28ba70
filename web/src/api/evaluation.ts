import { http, path } from './http';
import { allPages } from './pages';
import type { Rollout, Rule } from './types';

/**
 * Evaluation (`/evaluate/v1`, what every Flipt SDK calls) and the reads the console explains an
 * answer with: a flag's rules or rollouts, through the same public management API as the flags
 * screens (GET only; the rules screens own their writes in rules.ts and rollouts.ts).
 */

/** Flipt's context is map<string, string>. */
export type EvaluationContext = Record<string, string>;

export interface EvaluationRequest {
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: EvaluationContext;
}

export type EvaluationReason = 'UNKNOWN_EVALUATION_REASON' | 'FLAG_DISABLED_EVALUATION_REASON' | 'MATCH_EVALUATION_REASON' | 'DEFAULT_EVALUATION_REASON';

interface Answer {
  flagKey: string;
  reason: EvaluationReason;
  segmentKeys?: string[];
  requestId: string;
  /** The server's own time for the evaluation (a float). */
  requestDurationMillis: number;
  timestamp: string;
}

export interface VariantAnswer extends Answer {
  match: boolean;
  variantKey: string;
  /** JSON text, '' when none. */
  variantAttachment: string;
}

export interface BooleanAnswer extends Answer {
  enabled: boolean;
}

export const evaluation = {
  variant: (request: EvaluationRequest) => http.post<VariantAnswer>('/evaluate/v1/variant', request),
  boolean: (request: EvaluationRequest) => http.post<BooleanAnswer>('/evaluate/v1/boolean', request),
  /** A variant flag's rules, in rank order. */
  rules: (ns: string, flagKey: string) => allPages<Rule, 'rules'>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/rules`, 'rules'),
  /** A boolean flag's rollouts, in rank order (Flipt names the list `rules`). */
  rollouts: (ns: string, flagKey: string) => allPages<Rollout, 'rules'>(path`/api/v1/namespaces/${ns}/flags/${flagKey}/rollouts`, 'rules'),
};
