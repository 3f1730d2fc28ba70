import * as jsYaml from 'js-yaml';
import { CORE_SCHEMA, loadAll, YAMLException, type Type } from 'js-yaml';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document as YamlDocument, type Node } from 'yaml';
import { MAX_DOCUMENT_DEPTH } from './document';
import { ExtError } from './errors';
import { excerpt } from './excerpt';
import { setPositions, type Positions } from './positions';
import { define, type RawDocument } from './raw';
import { parseSimpleYaml } from './yaml-fast';


/** As deep as a JSON document may nest; aliases may also point at their own ancestors, which Go's decoder refuses too. */
const MAX_DEPTH = MAX_DOCUMENT_DEPTH;

/** Past this size the `yaml` library (≈0.5 MB/s here) is too slow; js-yaml reads ≈10× faster. */
const POSITIONED_LIMIT = 256 * 1024;

/**
 * A YAML stream (`---`-separated documents) as plain data with positions. Empty documents
 * (a trailing `---`) are skipped, as Go's decoder skips them. Plain block YAML goes through
 * the fast reader; anything else through the `yaml` library, which records lines for error
 * messages — or, for large files, js-yaml, which is much faster but records none (errors
 * then name document, key and field without a line).
 */
export function parseYamlStream(text: string): RawDocument[] {
  return parseSimpleYaml(text) ?? (text.length > POSITIONED_LIMIT ? parseLargeYaml(text) : parseFullYaml(text));
}

/**
 * Aliases can make a small file expand enormously ("billion laughs"). Without aliases a value
 * takes at least a character of source, so more values than characters means amplification;
 * Go's yaml.v3 refuses such documents too ("excessive aliasing").
 */
function expansionBudget(text: string): { spend(document: number): void } {
  let left = text.length + 10_000;
  return {
    spend(document) {
      if (--left < 0) throw new ExtError('unmarshalling document: yaml: document contains excessive aliasing', { document });
    },
  };
}

/** The YAML 1.2 core schema plus merge keys, as Go's yaml.v3 reads (dates stay strings). */
// `types` exists at run time but is missing from @types/js-yaml.
const LARGE_SCHEMA = CORE_SCHEMA.extend({ implicit: [(jsYaml as unknown as { types: { merge: Type } }).types.merge] });

/** js-yaml shares one object between an anchor and its aliases, so a cycle is a real cycle. */
function refuseCycles(value: unknown, document: number, budget: ReturnType<typeof expansionBudget>, depth = 0): void {
  budget.spend(document);
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_DEPTH) throw new ExtError('unmarshalling document: yaml: document nests too deeply (alias cycle?)', { document });
  for (const child of Array.isArray(value) ? value : Object.values(value)) refuseCycles(child, document, budget, depth + 1);
}

/** js-yaml: large files, no line numbers. */
export function parseLargeYaml(text: string): RawDocument[] {
  try {
    const values = loadAll(text, undefined, { schema: LARGE_SCHEMA }).filter((value) => value !== null && value !== undefined);
    const budget = expansionBudget(text);
    values.forEach((value, i) => refuseCycles(value, i + 1, budget));
    return values.map((value) => ({ value, line: 1 }));
  } catch (err) {
    if (err instanceof YAMLException) {
      const mark = err.mark;
      const at = mark ? excerpt(text, mark.line + 1, mark.column + 1) : '';
      throw new ExtError(`unmarshalling document: yaml: ${err.reason}`, { document: 1, line: mark ? mark.line + 1 : undefined }, 'invalid', at);
    }
    throw err;
  }
}

/** Any YAML, through the `yaml` library (with positions from its line counter). */
export function parseFullYaml(text: string): RawDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, merge: true, prettyErrors: false });
  // An empty stream gives an empty array-like result.
  const out: RawDocument[] = [];
  const budget = expansionBudget(text);
  for (const [i, doc] of Array.from(docs as Iterable<YamlDocument.Parsed>).entries()) {
    if (doc.errors.length > 0) {
      const err = doc.errors[0];
      const { line, col } = lines.linePos(err.pos[0]);
      throw new ExtError(`unmarshalling document: yaml: ${err.message.split('\n')[0]}`, { document: i + 1, line }, 'invalid', excerpt(text, line, col));
    }
    const lineAt = (node: Node | null | undefined, fallback: number) => (node?.range ? lines.linePos(node.range[0]).line : fallback);
    const convert = (node: Node | null | undefined, depth: number): unknown => {
      budget.spend(i + 1);
      if (depth > MAX_DEPTH) throw new ExtError('unmarshalling document: yaml: document nests too deeply (alias cycle?)', { document: i + 1, line: lineAt(node, 0) });
      if (node === null || node === undefined) return null;
      if (isAlias(node)) return convert(node.resolve(doc) as Node | undefined, depth + 1);
      if (isScalar(node)) return node.value;
      const p: Positions = { line: lineAt(node, 0), lines: new Map() };
      if (isSeq(node)) {
        const list: unknown[] = [];
        for (const item of node.items as Node[]) {
          const value = convert(item, depth + 1);
          p.lines!.set(list.length, lineAt(item, p.line!));
          if (isScalar(item) && (typeof item.value === 'number' || typeof item.value === 'boolean') && item.source !== undefined) {
            (p.sources ??= new Map()).set(list.length, item.source);
          }
          list.push(value);
        }
        setPositions(list, p);
        return list;
      }
      if (isMap(node)) {
        const map: Record<string, unknown> = {};
        for (const pair of node.items) {
          const keyNode = pair.key as Node | null;
          const valueNode = pair.value as Node | null;
          const keyValue = isScalar(keyNode) ? keyNode.value : convert(keyNode, depth + 1);
          if (typeof keyValue === 'symbol') {
            // A merge key: entries of the merged map(s) that this map does not set itself.
            const merged = convert(valueNode, depth + 1);
            for (const source of Array.isArray(merged) ? merged : [merged]) {
              if (source === null || typeof source !== 'object' || Array.isArray(source)) continue;
              for (const [k, value] of Object.entries(source)) if (!Object.hasOwn(map, k)) define(map, k, value);
            }
            continue;
          }
          const key = keyValue === null || keyValue === undefined ? '' : String(keyValue);
          define(map, key, convert(valueNode, depth + 1));
          p.lines!.set(key, lineAt(keyNode, p.line!));
          if (isScalar(valueNode) && (typeof valueNode.value === 'number' || typeof valueNode.value === 'boolean') && valueNode.source !== undefined) {
            (p.sources ??= new Map()).set(key, valueNode.source);
          }
        }
        setPositions(map, p);
        return map;
      }
      return null;
    };
    const value = convert(doc.contents as Node | null, 0);
    if (value === null) continue;
    out.push({ value, line: lineAt(doc.contents as Node, 1) });
  }
  return out;
}
