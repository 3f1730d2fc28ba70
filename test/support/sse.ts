import { EventSource } from 'eventsource';

/**
 * A Server-Sent Events client for tests: the `eventsource` package (the WHATWG EventSource for
 * Node), its messages queued so a test can await the next one with a bound.
 */
export class SseClient {
  readonly source: EventSource;
  private readonly queue: MessageEvent[] = [];
  private waiter: (() => void) | null = null;
  readonly opened: Promise<void>;
  errors = 0;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
    });
    this.opened = new Promise((resolve, reject) => {
      this.source.addEventListener('open', () => resolve(), { once: true });
      this.source.addEventListener('error', (event) => reject(new Error(`the stream did not open: ${(event as { code?: number }).code ?? ''} ${(event as { message?: string }).message ?? ''}`)), { once: true });
    });
    this.opened.catch(() => undefined);
    this.source.addEventListener('error', () => this.errors++);
    this.source.addEventListener('message', (event) => {
      this.queue.push(event);
      this.waiter?.();
    });
  }

  /** The next message's JSON data, or a failure after `timeoutMs`. */
  async next(timeoutMs = 2000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
    return JSON.parse(this.queue.shift()!.data);
  }

  /** Messages received and not yet taken. */
  get pending(): number {
    return this.queue.length;
  }

  close(): void {
    this.source.close();
  }
}
