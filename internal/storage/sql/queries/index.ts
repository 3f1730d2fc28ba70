import * as audit from './audit';
import * as authentications from './authentications';
import * as batch from './batch';
import * as evaluation from './evaluation';
import * as flags from './flags';
import * as namespaces from './namespaces';
import * as rollouts from './rollouts';
import * as rules from './rules';
import * as segments from './segments';

/**
 * Every query of the store port, under the port's method name: what each resource file exports
 * is exactly its queries (helpers stay unexported, or in paging.ts, ranks.ts, references.ts,
 * revision.ts), so a new query is written once, in its resource's file.
 */
export const QUERIES = { ...namespaces, ...flags, ...segments, ...rules, ...rollouts, ...batch, ...evaluation, ...authentications, ...audit };

export type { Query, QueryKind } from './kinds';
