import { SseParser, type NamespaceChangeJson, type NamespaceReadyJson, type SseMessage } from '../../internal/wire';

/**
 * A client of the namespace event stream (`GET /api/v1/namespaces/{ns}/events`), as the
 * dashboard reads it — fetch, the body read as it arrives, frames parsed by the wire room's
 * SseParser — for tests that await what it says: `await events.next('change')` resolves with
 * the next change (or fails after a bound), `close()` hangs up.
 */
export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** The first frame (`ready`), once the stream answered 200. */
  ready: NamespaceReadyJson;
  /** The next message of that event (earlier ones of other kinds are skipped); fails after `withinMs`. */
  next(event: 'change', withinMs?: number): Promise<NamespaceChangeJson>;
  /** Every frame's text received so far (heartbeat comments included). */
  readonly raw: string;
  /** Resolves once the server has ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openEvents(baseUrl: string, ns: string, options: { headers?: Record<string, string>; query?: string } = {}): Promise<EventStreamClient> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/v1/namespaces/${encodeURIComponent(ns)}/events${options.query ?? ''}`, { headers: options.headers, signal: abort.signal });
  if (res.status !== 200) {
    const text = await res.text();
    throw Object.assign(new Error(`events for ${ns}: HTTP ${res.status} ${text}`), { status: res.status, body: text });
  }
  const parser = new SseParser();
  const inbox: SseMessage[] = [];
  let wake = null as (() => void) | null;
  let raw = '';
  let done = false;
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        raw += r.value;
        inbox.push(...parser.push(r.value));
        wake?.();
      }
    } catch {
      // Closed by us (abort) or cut by the server: the stream has ended either way.
    } finally {
      done = true;
      wake?.();
    }
  })();

  async function take(event: string, withinMs: number): Promise<SseMessage> {
    const deadline = performance.now() + withinMs;
    for (;;) {
      const at = inbox.findIndex((m) => m.event === event);
      if (at >= 0) return inbox.splice(0, at + 1)[at];
      if (done) throw new Error(`the stream ended before a "${event}" event (received: ${JSON.stringify(raw)})`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no "${event}" event within ${withinMs} ms (received: ${JSON.stringify(raw)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  const ready = JSON.parse((await take('ready', 5000)).data) as NamespaceReadyJson;
  return {
    status: res.status,
    headers: res.headers,
    ready,
    next: async (event, withinMs = 2000) => JSON.parse((await take(event, withinMs)).data) as NamespaceChangeJson,
    get raw() {
      return raw;
    },
    ended,
    close: () => abort.abort(),
  };
}
