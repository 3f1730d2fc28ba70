/**
 * Pennon's namespace event stream (its own route, Flipt has none): `GET
 * /api/v1/namespaces/{ns}/events`, Server-Sent Events that say when the namespace moved to
 * another revision and which flags that touched — what the dashboard follows to stay live. The
 * server writes these frames; the dashboard (and the tests) read them back with `SseParser`.
 *
 *   event: ready                       first, once subscribed: the revision held now
 *   data: {"namespace":"default","revision":"…","heartbeatMs":15000}
 *
 *   event: change                      each new revision of the namespace
 *   data: {"namespace":"default","revision":"…","flags":["new-checkout"]}
 *
 *   : ping                             a heartbeat (a comment) while nothing changes
 *
 * `flags` lists the flags changed, created or deleted (and those whose rules or rollouts use a
 * segment that changed); `[]` when only segments or the namespace itself changed; `null` when
 * more than MAX_LISTED_FLAGS changed at once (a whole rebuild): read everything again.
 */

export const READY_EVENT = 'ready';
export const CHANGE_EVENT = 'change';

/** Beyond this many changed flags an event says `flags: null` rather than list them. */
export const MAX_LISTED_FLAGS = 1000;

/** The heartbeat frame: an SSE comment, which EventSource and our parser ignore. */
export const SSE_HEARTBEAT = ': ping\n\n';

export interface NamespaceReadyJson {
  namespace: string;
  /** The revision the server holds as the stream starts ('' for a namespace that does not exist). */
  revision: string;
  /** How often a heartbeat comes while nothing changes (ms; 0: none): a silent stream past it is dead. */
  heartbeatMs: number;
}

export interface NamespaceChangeJson {
  namespace: string;
  revision: string;
  /** The flags the change touched; null: too many to list, read everything again. */
  flags: readonly string[] | null;
}

/** One SSE frame: an event name (none: EventSource's `message`) and its data as one line of JSON. */
export function sseFrame(event: string | null, data: unknown): string {
  // JSON.stringify never writes a raw line break, so the data is one `data:` line.
  const line = `data: ${JSON.stringify(data)}\n\n`;
  return event === null ? line : `event: ${event}\n${line}`;
}

export interface SseMessage {
  /** The `event:` field ('message' without one). */
  event: string;
  /** The `data:` lines joined by "\n". */
  data: string;
}

/**
 * Server-Sent Events read as the HTML standard's event stream parser reads them (lines ended by
 * CRLF, LF or CR; `event` and `data` fields; comments and other fields ignored; a blank line
 * dispatches), fed text in whatever pieces it arrives.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private sawData = false;

  /** Takes the next piece of text; returns the messages it completed. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\n|\r/);
      // A lone CR at the end may be the first half of CRLF: wait for the next piece.
      if (end < 0 || (this.buffer[end] === '\r' && end === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      const message = this.sawData ? { event: this.event || 'message', data: this.data.join('\n') } : null;
      this.event = '';
      this.data = [];
      this.sawData = false;
      return message;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') {
      this.data.push(value);
      this.sawData = true;
    }
    return null;
  }
}
