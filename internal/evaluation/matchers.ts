import { invalid } from '../core/errors';
import { compareGoTime, goTrimSpace, parseGoBool, parseGoDateTime, parseGoFloat, type GoTime } from '../core/goparse';
import type { ComparisonType } from '../core/types';

/**
 * Constraint matchers with Flipt v1's semantics (`matchesString`, `matchesNumber`, `matchesBool`,
 * `matchesDateTime` in `internal/server/evaluation/legacy_evaluator.go`), compiled
 * once per snapshot: the constraint's value is parsed here, not per request. A matcher gets
 * the context value (a missing key is "") and answers true or false; Flipt's matcher errors
 * (unparseable numbers, booleans, datetimes, lists) are "no match", never a failure.
 */
export type Matcher = (value: string) => boolean;

const NEVER: Matcher = () => false;

/** A JSON list of strings as Go decodes it into []string (`null` → empty, null items → ""). */
function stringList(text: string): Set<string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null) return new Set();
  if (!Array.isArray(parsed)) return null;
  if (!parsed.every((v) => v === null || typeof v === 'string')) return null;
  return new Set(parsed.map((v) => (v === null ? '' : (v as string))));
}

/** A JSON list of numbers as Go decodes it into []float64. */
function numberList(text: string): number[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) return null;
  if (!parsed.every((v) => v === null || (typeof v === 'number' && Number.isFinite(v)))) return null;
  return parsed.map((v) => (v === null ? 0 : (v as number)));
}

function presence(operator: string): Matcher | null {
  if (operator === 'present') return (v) => goTrimSpace(v) !== '';
  if (operator === 'notpresent') return (v) => goTrimSpace(v) === '';
  return null;
}

function stringMatcher(operator: string, value: string): Matcher {
  switch (operator) {
    case 'empty':
      return (v) => goTrimSpace(v) === '';
    case 'notempty':
      return (v) => goTrimSpace(v) !== '';
    case 'eq':
      return (v) => v !== '' && v === value;
    case 'neq':
      return (v) => v !== '' && v !== value;
    case 'prefix':
      return (v) => v !== '' && goTrimSpace(v).startsWith(value);
    case 'suffix':
      return (v) => v !== '' && goTrimSpace(v).endsWith(value);
    case 'contains':
      return (v) => v !== '' && v.includes(value);
    case 'notcontains':
      return (v) => v !== '' && !v.includes(value);
    case 'isoneof':
    case 'isnotoneof': {
      const list = stringList(value);
      if (!list) return NEVER; // a bad list never matches, for either operator
      return operator === 'isoneof' ? (v) => v !== '' && list.has(v) : (v) => v !== '' && !list.has(v);
    }
    default:
      return NEVER;
  }
}

function numberMatcher(operator: string, value: string): Matcher {
  const present = presence(operator);
  if (present) return present;
  if (operator === 'isoneof' || operator === 'isnotoneof') {
    const list = numberList(value);
    if (!list) return NEVER;
    const member = (n: number) => list.some((x) => x === n);
    return operator === 'isoneof'
      ? (v) => {
          const n = v === '' ? null : parseGoFloat(v);
          return n !== null && member(n);
        }
      : (v) => {
          const n = v === '' ? null : parseGoFloat(v);
          return n !== null && !member(n);
        };
  }
  const target = parseGoFloat(value);
  if (target === null) return NEVER;
  const compare = (test: (n: number) => boolean): Matcher => (v) => {
    if (v === '') return false;
    const n = parseGoFloat(v);
    return n !== null && test(n);
  };
  switch (operator) {
    case 'eq':
      return compare((n) => n === target);
    case 'neq':
      return compare((n) => n !== target);
    case 'lt':
      return compare((n) => n < target);
    case 'lte':
      return compare((n) => n <= target);
    case 'gt':
      return compare((n) => n > target);
    case 'gte':
      return compare((n) => n >= target);
    default:
      return NEVER;
  }
}

function booleanMatcher(operator: string): Matcher {
  const present = presence(operator);
  if (present) return present;
  if (operator === 'true') return (v) => v !== '' && parseGoBool(v) === true;
  if (operator === 'false') return (v) => v !== '' && parseGoBool(v) === false;
  return NEVER;
}

function datetimeMatcher(operator: string, value: string): Matcher {
  const present = presence(operator);
  if (present) return present;
  const target = parseGoDateTime(value);
  if (target === null) return NEVER;
  const compare = (test: (order: number) => boolean): Matcher => (v) => {
    if (v === '') return false;
    const t: GoTime | null = parseGoDateTime(v);
    return t !== null && test(compareGoTime(t, target));
  };
  switch (operator) {
    case 'eq':
      return compare((o) => o === 0);
    case 'neq':
      return compare((o) => o !== 0);
    case 'lt':
      return compare((o) => o < 0);
    case 'lte':
      return compare((o) => o <= 0);
    case 'gt':
      return compare((o) => o > 0);
    case 'gte':
      return compare((o) => o >= 0);
    default:
      return NEVER;
  }
}

/**
 * The matcher for one constraint. Operators are case-sensitive at evaluation (the API stores
 * them lower-cased; a declarative file may not). An unknown comparison type is the one error
 * that fails an evaluation, as in Flipt.
 */
export function compileMatcher(type: ComparisonType, operator: string, value: string): Matcher {
  switch (type) {
    case 'STRING_COMPARISON_TYPE':
    case 'ENTITY_ID_COMPARISON_TYPE':
      return stringMatcher(operator, value);
    case 'NUMBER_COMPARISON_TYPE':
      return numberMatcher(operator, value);
    case 'BOOLEAN_COMPARISON_TYPE':
      return booleanMatcher(operator);
    case 'DATETIME_COMPARISON_TYPE':
      return datetimeMatcher(operator, value);
    default:
      return () => {
        throw invalid('unknown constraint type');
      };
  }
}

/**
 * Why a constraint did not match, for explanations (the CLI and the dashboard): the parse
 * failures Flipt swallows. Not used on the evaluation path.
 */
export function diagnose(type: ComparisonType, operator: string, constraintValue: string, input: string): string | null {
  const noValue = ['empty', 'notempty', 'present', 'notpresent'].includes(operator);
  if (!noValue && input === '') return 'the context has no value for this property';
  switch (type) {
    case 'NUMBER_COMPARISON_TYPE':
      if (noValue) return null;
      if (parseGoFloat(input) === null) return `"${input}" is not a number`;
      if (operator === 'isoneof' || operator === 'isnotoneof') return numberList(constraintValue) ? null : 'the constraint value is not a JSON list of numbers';
      return parseGoFloat(constraintValue) === null ? 'the constraint value is not a number' : null;
    case 'BOOLEAN_COMPARISON_TYPE':
      return noValue || parseGoBool(input) !== null ? null : `"${input}" is not a boolean`;
    case 'DATETIME_COMPARISON_TYPE':
      if (noValue) return null;
      if (parseGoDateTime(input) === null) return `"${input}" is not an RFC 3339 datetime or a YYYY-MM-DD date`;
      return parseGoDateTime(constraintValue) === null ? 'the constraint value is not a datetime' : null;
    case 'STRING_COMPARISON_TYPE':
    case 'ENTITY_ID_COMPARISON_TYPE':
      if ((operator === 'isoneof' || operator === 'isnotoneof') && !stringList(constraintValue)) {
        return 'the constraint value is not a JSON list of strings';
      }
      return null;
    default:
      return 'unknown constraint type';
  }
}
