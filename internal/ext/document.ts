/**
 * Flipt's import/export document (the same schema as declarative `features.yml` files).
 * Field names are the wire names (snake_case `match_type` included), so a document can be
 * encoded as it stands; optional fields are absent rather than empty, as Go's `omitempty`
 * leaves them out.
 */

import { MAX_JSON_DEPTH } from '../core/json-depth';

export type Encoding = 'yaml' | 'json';

/**
 * How deep a document may nest: a variant attachment or flag metadata may nest as deep as any
 * JSON the API takes, and a document adds at most eight levels of its own around them
 * (flags, a flag, its rules, a rule, its distributions…).
 */
export const MAX_DOCUMENT_DEPTH = MAX_JSON_DEPTH + 8;

export interface Document {
  /** Only the first document of a stream carries (and is read for) the version. */
  version?: string;
  namespace?: NamespaceRef;
  flags?: Flag[];
  segments?: Segment[];
}

/** A plain key (its name is then the key too), or the full object. */
export type NamespaceRef = string | NamespaceObject;

export interface NamespaceObject {
  key?: string;
  name?: string;
  description?: string;
}

export interface Flag {
  key?: string;
  name?: string;
  type?: string;
  description?: string;
  enabled: boolean;
  metadata?: Record<string, unknown>;
  variants?: Variant[];
  rules?: Rule[];
  rollouts?: Rollout[];
}

export interface Variant {
  default?: boolean;
  key?: string;
  name?: string;
  description?: string;
  /** Native YAML/JSON; stored as compact JSON text. */
  attachment?: unknown;
}

export interface Rule {
  /** One segment key, or several with an operator. */
  segment?: string | SegmentKeys;
  /** Absent on export; on import, absent means position + 1 (from version 1.1). */
  rank?: number;
  distributions?: Distribution[];
}

export interface SegmentKeys {
  keys?: string[];
  operator?: string;
}

export interface Distribution {
  variant?: string;
  rollout: number;
}

export interface Rollout {
  description?: string;
  segment?: SegmentRule;
  threshold?: ThresholdRule;
}

export interface SegmentRule {
  key?: string;
  keys?: string[];
  /** Written on export only when AND. */
  operator?: string;
  value?: boolean;
}

export interface ThresholdRule {
  percentage: number;
  value?: boolean;
}

export interface Segment {
  key?: string;
  name?: string;
  description?: string;
  constraints?: Constraint[];
  match_type?: string;
}

export interface Constraint {
  type?: string;
  property?: string;
  operator?: string;
  /** Text, as stored; from version 1.6 a YAML list for isoneof/isnotoneof (kept here as JSON text). */
  value?: string;
  description?: string;
}

/** The namespace key a document names; `default` when it names none. */
export function namespaceKeyOf(doc: Document): string {
  const ns = doc.namespace;
  const key = typeof ns === 'string' ? ns : ns?.key;
  return key === undefined || key === '' ? 'default' : key;
}

/** The file extension's encoding (`.yml`, `.yaml`, `.json`), or null for anything else. */
export function encodingOf(filename: string): Encoding | null {
  const match = /\.(ya?ml|json)$/i.exec(filename);
  if (!match) return null;
  return match[1].toLowerCase() === 'json' ? 'json' : 'yaml';
}
