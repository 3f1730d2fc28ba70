import { stringify } from 'yaml';
import type { Document, Encoding } from './document';
import { goMarshal } from './json';

/**
 * Documents → text, in the shapes Flipt writes: YAML as Go's yaml.v2 lays it out (lists not
 * indented under their key, no line folding), several namespaces as a `---` stream; JSON as
 * Go's json.Encoder writes it (compact, HTML characters escaped, one document per line).
 * Field order is the documents' own (the exporter builds them in Flipt's struct order).
 */
export function encodeDocuments(docs: Document[], encoding: Encoding): string {
  if (encoding === 'json') return docs.map((doc) => `${goMarshal(doc)}\n`).join('');
  return docs.map((doc) => stringify(doc, YAML_LAYOUT)).join('---\n');
}

/** yaml's options for Go's yaml.v2 layout. */
export const YAML_LAYOUT = {
  indentSeq: false,
  lineWidth: 0,
  // yaml.v2 quotes strings a YAML 1.1 reader would take for something else ("yes", "on", …).
  schema: 'yaml-1.1',
  nullStr: '',
  // yaml.v2 never writes anchors; and looking for repeated objects cost a quarter of the time.
  aliasDuplicateObjects: false,
} as const;

/** The comment line Flipt's CLI writes at the top of an export file, then a blank line. */
export function exportHeader(product: string, version: string, at: Date = new Date()): string {
  return `# exported by ${product} (${version}) on ${at.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n\n`;
}
