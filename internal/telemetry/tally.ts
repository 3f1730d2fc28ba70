/**
 * Counters and histograms for the hot path. prom-client hashes the label set on every
 * increment (≈1–2 µs each); these keep plain numbers per series, found by a key the caller
 * builds. They are not prom-client metrics: a scrape renders them itself, in slices
 * (`render`), so that tens of thousands of series never hold the event loop in one piece
 * (issue 15: a 10,000-flag scrape rendered whole stalled every evaluation for ~1.2 s).
 */
type Labels = Record<string, string>;

/** Prometheus text format: `\`, `"` and newlines in a label value are escaped. */
function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

/** `a="x",b="y"`: a series' labels, rendered once when the series is created. */
function labelText(labels: Labels): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabelValue(value)}"`)
    .join(',');
}

/** HELP text escapes `\` and newlines. */
function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
}

/** A metric family a scrape renders in slices of about `budget` characters; the last slice ends the family. */
export interface Family {
  render(budget: number): Generator<string>;
}

interface CounterSeries {
  /** `name{labels} `: the line up to its value, built once when the series is created. */
  readonly head: string;
  value: number;
}

/**
 * Series rendered together, with the text of their last rendering and the sum of their values
 * then. Counters only go up, so an unchanged sum means no value changed and the text is reused:
 * between two scrapes most flags are not evaluated, and their lines cost nothing to send again.
 */
interface Chunk {
  series: CounterSeries[];
  text: string;
  /** The values' sum and the series count at the last rendering (-1: never rendered). */
  renderedSum: number;
  renderedCount: number;
}

const CHUNK_SERIES = 64;

export class TallyCounter implements Family {
  private readonly index = new Map<string, CounterSeries>();
  private readonly chunks: Chunk[] = [];

  constructor(
    private readonly name: string,
    private readonly help: string,
  ) {}

  /** The series for `key`, created with `labels()` the first time. */
  seriesFor(key: string, labels: () => Labels): { value: number } {
    let s = this.index.get(key);
    if (!s) {
      s = { head: `${this.name}{${labelText(labels())}} `, value: 0 };
      this.index.set(key, s);
      let last = this.chunks.at(-1);
      if (!last || last.series.length >= CHUNK_SERIES) this.chunks.push((last = { series: [], text: '', renderedSum: -1, renderedCount: 0 }));
      last.series.push(s);
    }
    return s;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get size(): number {
    return this.index.size;
  }

  *render(budget: number): Generator<string> {
    let out = header(this.name, this.help, 'counter');
    // Chunks (and series) added while the scrape is under way are rendered too.
    for (let c = 0; c < this.chunks.length; c++) {
      out += chunkText(this.chunks[c]);
      if (out.length >= budget) {
        yield out;
        out = '';
      }
    }
    yield `${out}\n`;
  }
}

function chunkText(chunk: Chunk): string {
  const { series } = chunk;
  let sum = 0;
  for (let i = 0; i < series.length; i++) sum += series[i].value;
  if (sum !== chunk.renderedSum || series.length !== chunk.renderedCount) {
    let text = '';
    for (let i = 0; i < series.length; i++) text += `${series[i].head}${series[i].value}\n`;
    chunk.text = text;
    chunk.renderedSum = sum;
    chunk.renderedCount = series.length;
  }
  return chunk.text;
}

export interface HistogramSeries {
  count: number;
  sum: number;
  /** Per-bucket (not cumulative) counts; the last slot is +Inf. */
  buckets: number[];
}

interface RenderedHistogram extends HistogramSeries {
  labels: string;
  /**
   * The series' lines as last scraped, and its count then: a series no evaluation touched since
   * is not rendered again (most flags, between two scrapes). Costs ~1.5 KB per series, bounded
   * by the series caps; saves most of a scrape's CPU and garbage.
   */
  text: string;
  renderedCount: number;
}

export class TallyHistogram implements Family {
  private readonly series = new Map<string, RenderedHistogram>();
  /** `le="5"} ` per bound, and +Inf's: written once, not per series per scrape. */
  private readonly le: string[];

  constructor(
    private readonly name: string,
    private readonly help: string,
    private readonly bounds: number[],
  ) {
    this.le = [...bounds.map(String), '+Inf'].map((bound) => `le="${bound}"} `);
  }

  /** The series for `key`, created with `labels()` the first time. */
  seriesFor(key: string, labels: () => Labels): HistogramSeries {
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels: labelText(labels()), count: 0, sum: 0, buckets: new Array<number>(this.bounds.length + 1).fill(0), text: '', renderedCount: -1 }));
    return s;
  }

  observe(s: HistogramSeries, value: number): void {
    s.count++;
    s.sum += value;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    s.buckets[i]++;
  }

  /** One series whole: its buckets, sum and count agree within a scrape. */
  private lines(s: RenderedHistogram): string {
    const { name, le } = this;
    const bucket = `${name}_bucket{${s.labels === '' ? '' : `${s.labels},`}`;
    let out = '';
    let cumulative = 0;
    for (let i = 0; i < le.length; i++) {
      cumulative += s.buckets[i];
      out += `${bucket}${le[i]}${cumulative}\n`;
    }
    return `${out}${name}_sum{${s.labels}} ${s.sum}\n${name}_count{${s.labels}} ${s.count}\n`;
  }

  *render(budget: number): Generator<string> {
    let out = header(this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      if (s.renderedCount !== s.count) {
        s.text = this.lines(s);
        s.renderedCount = s.count;
      }
      out += s.text;
      if (out.length >= budget) {
        yield out;
        out = '';
      }
    }
    yield `${out}\n`;
  }
}
