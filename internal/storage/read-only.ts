import { readOnly } from '../core';
import type { WriteStore } from './types';

/**
 * The write side of a read-only instance (`storage.read_only`, the evaluation tier of a
 * read/write split): every write is refused with Flipt's read-only error, after the
 * management layer has validated the request — the order in which Flipt answers.
 * A proxy, so that a write method added later is refused too instead of slipping through.
 */
export function readOnlyWrites(): WriteStore {
  return new Proxy({} as WriteStore, {
    get: () => () => Promise.reject(readOnly()),
  });
}
