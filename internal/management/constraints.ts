import { emptyField, formatGoTime, goQuote, invalid, parseGoDateTime, type ComparisonType } from '../core';
import type { ConstraintInput } from '../storage';
import type { ConstraintRequest } from './requests';
import { bounded, required } from './validate';

/** Operators each comparison type accepts (Flipt rpc/flipt operators). */
const NUMBER_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'];
export const OPERATORS: Record<Exclude<ComparisonType, 'UNKNOWN_COMPARISON_TYPE'>, readonly string[]> = {
  STRING_COMPARISON_TYPE: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  NUMBER_COMPARISON_TYPE: NUMBER_OPERATORS,
  BOOLEAN_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
  DATETIME_COMPARISON_TYPE: NUMBER_OPERATORS,
  ENTITY_ID_COMPARISON_TYPE: ['eq', 'neq', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
};

/** Operators that take no value; their value is stored as "". */
export const NO_VALUE_OPERATORS = new Set(['true', 'false', 'empty', 'notempty', 'present', 'notpresent']);

const TYPE_WORD: Record<string, string> = {
  STRING_COMPARISON_TYPE: 'string',
  NUMBER_COMPARISON_TYPE: 'number',
  BOOLEAN_COMPARISON_TYPE: 'boolean',
  DATETIME_COMPARISON_TYPE: 'datetime',
  ENTITY_ID_COMPARISON_TYPE: 'entityId',
};

const MAX_LIST_ITEMS = 100;

function checkList(type: ComparisonType, value: string, property: string): void {
  const word = TYPE_WORD[type];
  const wantNumbers = type === 'NUMBER_COMPARISON_TYPE';
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    list = undefined;
  }
  // Go decodes `null` (as the whole list or an item) into the zero value without complaint.
  const ok =
    list === null ||
    (Array.isArray(list) &&
      list.every((v) => v === null || (wantNumbers ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string')));
  if (!ok) throw invalid(`invalid value provided for property ${goQuote(property)} of type ${word}`);
  if (Array.isArray(list) && list.length > MAX_LIST_ITEMS) {
    throw invalid(`too many values provided for property ${goQuote(property)} of type ${word} (maximum ${MAX_LIST_ITEMS})`);
  }
}

/** Flipt's constraint rules, in Flipt's order; returns what is stored. */
export function validateConstraint(req: ConstraintRequest): ConstraintInput {
  required(req.property, 'property');
  required(req.operator, 'operator');
  const operator = req.operator.toLowerCase();
  if (req.type === 'UNKNOWN_COMPARISON_TYPE' || !(req.type in OPERATORS)) {
    throw invalid(`invalid constraint type: ${goQuote(req.type)}`);
  }
  if (req.type === 'ENTITY_ID_COMPARISON_TYPE' && req.property !== 'entityId') {
    throw invalid(`property is ${req.property} instead of "entityId"`);
  }
  if (!OPERATORS[req.type].includes(operator)) {
    throw invalid(`constraint operator ${goQuote(req.operator)} is not valid for type ${TYPE_WORD[req.type]}`);
  }

  let value = req.value;
  if (value === '') {
    if (!NO_VALUE_OPERATORS.has(operator)) throw emptyField('value');
  } else if (req.type === 'DATETIME_COMPARISON_TYPE') {
    const parsed = parseGoDateTime(value);
    if (!parsed) throw invalid(`parsing datetime from ${goQuote(value)}`);
    value = formatGoTime(parsed);
  } else if (operator === 'isoneof' || operator === 'isnotoneof') {
    checkList(req.type, value, req.property);
  }
  if (NO_VALUE_OPERATORS.has(operator)) value = '';
  bounded(req.property, 'property');
  return { type: req.type, property: req.property, operator, value, description: req.description };
}
