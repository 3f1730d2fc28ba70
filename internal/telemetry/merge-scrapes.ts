/**
 * One scrape from several processes' scrapes (`serve` with server.workers > 1): what a single
 * process would have counted. Counters and histograms are summed series by series (their
 * samples are counts and sums, so the sum is exact); a gauge is one process's state (its memory,
 * its event loop), so each process's gauges are kept apart under a `worker` label. Families keep
 * the order in which they were first seen.
 */

interface Family {
  help: string | null;
  type: string;
  /** Sample (name and labels) → value, in first-seen order. */
  series: Map<string, number>;
}

const SUMMED = new Set(['counter', 'histogram', 'summary']);

export function mergeScrapes(scrapes: readonly { worker: string; text: string }[]): string {
  const families = new Map<string, Family>();
  const familyOf = (name: string): Family => {
    let family = families.get(name);
    if (!family) families.set(name, (family = { help: null, type: 'untyped', series: new Map() }));
    return family;
  };
  for (const { worker, text } of scrapes) {
    let current: Family | null = null;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      if (line.startsWith('# HELP ')) {
        const name = line.slice(7, indexOrEnd(line, ' ', 7));
        familyOf(name).help ??= line;
        continue;
      }
      if (line.startsWith('# TYPE ')) {
        const space = indexOrEnd(line, ' ', 7);
        current = familyOf(line.slice(7, space));
        current.type = line.slice(space + 1);
        continue;
      }
      if (line.startsWith('#')) continue;
      const cut = line.lastIndexOf(' ');
      if (cut <= 0) continue;
      let sample = line.slice(0, cut);
      const value = parseValue(line.slice(cut + 1));
      // A sample before any TYPE line (not written by our registries) is a family of its own.
      const family = current ?? familyOf(sample.slice(0, indexOrEnd(sample, '{', 0)));
      if (!SUMMED.has(family.type)) sample = withLabel(sample, 'worker', worker);
      family.series.set(sample, (family.series.get(sample) ?? 0) + value);
    }
  }
  let out = '';
  for (const [name, family] of families) {
    if (family.help !== null) out += `${family.help}\n`;
    out += `# TYPE ${name} ${family.type}\n`;
    for (const [sample, value] of family.series) out += `${sample} ${formatValue(value)}\n`;
    out += '\n';
  }
  return out;
}

function indexOrEnd(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

function formatValue(value: number): string {
  if (Number.isFinite(value) || Number.isNaN(value)) return String(value);
  return value > 0 ? '+Inf' : '-Inf';
}

/** `name{a="1"}` → `name{worker="2",a="1"}`; `name` → `name{worker="2"}`. */
function withLabel(sample: string, label: string, value: string): string {
  const brace = sample.indexOf('{');
  if (brace === -1) return `${sample}{${label}="${value}"}`;
  const rest = sample.slice(brace + 1);
  return `${sample.slice(0, brace)}{${label}="${value}"${rest.startsWith('}') ? '' : ','}${rest}`;
}
