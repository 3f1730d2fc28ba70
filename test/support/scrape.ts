/** Reading a Prometheus text scrape (`/metrics`) in tests. */

/** The value of one series in a Prometheus text scrape, its labels exactly `labels` (0 when absent). */
export function sampleValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{(.*)\}/.exec(line)?.[1] ?? '';
    const got = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v) && Object.keys(got).length === Object.keys(labels).length) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return 0;
}

/** The samples (not comments or blank lines) of a scrape whose metric name starts with `prefix`. */
export function samples(text: string, prefix = ''): string[] {
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#') && line.startsWith(prefix));
}

/**
 * Scrapes `url` reading the body chunk by chunk as it arrives, counting lines and bytes without
 * holding the text: the scraping client then costs the process almost nothing, so a test in the
 * server's process can measure what the scrape costs the server.
 */
export async function scrapeCounting(url: string): Promise<{ status: number; lines: number; bytes: number; chunks: number }> {
  const res = await fetch(url);
  let lines = 0;
  let bytes = 0;
  let chunks = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    chunks++;
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { status: res.status, lines, bytes, chunks };
}
