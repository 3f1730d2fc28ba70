import type { ReadStore, WriteStore } from '../storage';
import { flagOperations } from './flags';
import { namespaceOperations } from './namespaces';
import { rolloutOperations } from './rollouts';
import { ruleOperations } from './rules';
import { segmentOperations } from './segments';

/**
 * The management API's rules, independent of HTTP: validation in Flipt's order and messages,
 * normalisation (operators, segment keys, attachments, metadata), then one store call.
 */
export function createManagement(reads: ReadStore, writes: WriteStore) {
  return {
    ...namespaceOperations(reads, writes),
    ...flagOperations(reads, writes),
    ...segmentOperations(reads, writes),
    ...ruleOperations(reads, writes),
    ...rolloutOperations(reads, writes),
  };
}

export type Management = ReturnType<typeof createManagement>;
export type * from './requests';
export type { ListResult } from './paging';
export { OPERATORS, NO_VALUE_OPERATORS, validateConstraint } from './constraints';
/** The field checks an import plan (internal/ext) applies before any write, in the API's words. */
export { KEY_PATTERN, bounded, compactJson, required, requiredKey, segmentKeysOf, validAttachment } from './validate';
