import type { ConstraintRequestJson, SegmentCreateJson } from '../../../internal/wire/types';
import { ApiError } from './errors';
import { http, path } from './http';
import { allPages } from './pages';
import type { ComparisonType, Constraint, MatchType, Segment } from './types';

/** What a segment form sends (the key only on create: Flipt has no rename). */
export type SegmentInput = SegmentCreateJson;

/** What a constraint form sends; `value` is "" for operators that take none, a JSON array for lists. */
export type ConstraintInput = Omit<ConstraintRequestJson, 'type'> & { type: ComparisonType };

/** Segments and their constraints. `list` and `get` are used by other screens (rules, rollouts, console). */
export const segments = {
  list: (ns: string) => allPages<Segment, 'segments'>(path`/api/v1/namespaces/${ns}/segments`, 'segments'),
  get: (ns: string, key: string) => http.get<Segment>(path`/api/v1/namespaces/${ns}/segments/${key}`),
  create: (ns: string, input: SegmentInput) => http.post<Segment>(path`/api/v1/namespaces/${ns}/segments`, input),
  update: (ns: string, key: string, input: Omit<SegmentInput, 'key'>) => http.put<Segment>(path`/api/v1/namespaces/${ns}/segments/${key}`, input),
  /** Refused (400 `segment "ns/key" is in use`) while a rule or rollout uses the segment. */
  delete: (ns: string, key: string) => http.delete(path`/api/v1/namespaces/${ns}/segments/${key}`),

  createConstraint: (ns: string, segmentKey: string, input: ConstraintInput) =>
    http.post<Constraint>(path`/api/v1/namespaces/${ns}/segments/${segmentKey}/constraints`, input),
  updateConstraint: (ns: string, segmentKey: string, id: string, input: ConstraintInput) =>
    http.put<Constraint>(path`/api/v1/namespaces/${ns}/segments/${segmentKey}/constraints/${id}`, input),
  deleteConstraint: (ns: string, segmentKey: string, id: string) => http.delete(path`/api/v1/namespaces/${ns}/segments/${segmentKey}/constraints/${id}`),

  /**
   * A copy of the segment, with its constraints, in another namespace (Flipt's "copy to
   * namespace": the UI does it with the same public calls). The segment is created first; a
   * constraint the target refuses stops the copy there, and the error says so and which one.
   */
  async copy(ns: string, key: string, target: string): Promise<Segment> {
    const source = await segments.get(ns, key);
    const created = await segments.create(target, { key: source.key, name: source.name, description: source.description, matchType: source.matchType });
    for (const c of source.constraints) {
      try {
        await segments.createConstraint(target, source.key, { type: c.type, property: c.property, operator: c.operator, value: c.value, description: c.description });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw new ApiError(err.status, err.code, `Segment ${source.key} was created in ${target}, but its constraint on ${c.property} was refused: ${err.message}`, []);
      }
    }
    return created;
  },
};

/**
 * The constraint vocabulary (Flipt's rpc/flipt validation; the server's own table is
 * internal/management/constraints.ts): which operators each comparison type accepts, in the
 * order a picker offers them, with words a reader understands. The console's explanations use
 * the same labels.
 */
export const COMPARISON_TYPES: { type: ComparisonType; label: string }[] = [
  { type: 'STRING_COMPARISON_TYPE', label: 'String' },
  { type: 'NUMBER_COMPARISON_TYPE', label: 'Number' },
  { type: 'BOOLEAN_COMPARISON_TYPE', label: 'Boolean' },
  { type: 'DATETIME_COMPARISON_TYPE', label: 'Date and time' },
  { type: 'ENTITY_ID_COMPARISON_TYPE', label: 'Entity ID' },
];

const NUMBER_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'];

export const OPERATORS: Record<ComparisonType, readonly string[]> = {
  STRING_COMPARISON_TYPE: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  NUMBER_COMPARISON_TYPE: NUMBER_OPERATORS,
  BOOLEAN_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
  DATETIME_COMPARISON_TYPE: NUMBER_OPERATORS,
  ENTITY_ID_COMPARISON_TYPE: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
};

/** Operators that take no value: the server stores "" for them. */
export const NO_VALUE_OPERATORS: ReadonlySet<string> = new Set(['true', 'false', 'empty', 'notempty', 'present', 'notpresent']);

/** Operators whose value is a JSON array. */
export const LIST_OPERATORS: ReadonlySet<string> = new Set(['isoneof', 'isnotoneof']);

const LABELS: Record<string, string> = {
  eq: 'equals',
  neq: 'does not equal',
  empty: 'is empty',
  notempty: 'is not empty',
  prefix: 'starts with',
  suffix: 'ends with',
  isoneof: 'is one of',
  isnotoneof: 'is not one of',
  contains: 'contains',
  notcontains: 'does not contain',
  lt: 'is less than',
  lte: 'is less than or equal to',
  gt: 'is greater than',
  gte: 'is greater than or equal to',
  present: 'is present',
  notpresent: 'is not present',
  true: 'is true',
  false: 'is false',
};

/** Dates read better as before/after. */
const DATETIME_LABELS: Record<string, string> = { eq: 'is at', neq: 'is not at', lt: 'is before', lte: 'is at or before', gt: 'is after', gte: 'is at or after' };

/** `gt` → "is greater than" (for datetimes, "is after"); unknown operators as they are. */
export function operatorLabel(type: ComparisonType, operator: string): string {
  return (type === 'DATETIME_COMPARISON_TYPE' ? DATETIME_LABELS[operator] : undefined) ?? LABELS[operator] ?? operator;
}

export function comparisonTypeLabel(type: ComparisonType): string {
  return COMPARISON_TYPES.find((t) => t.type === type)?.label ?? type;
}

export function matchTypeLabel(matchType: MatchType): string {
  return matchType === 'ANY_MATCH_TYPE' ? 'Any' : 'All';
}
