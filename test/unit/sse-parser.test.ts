import { describe, expect, it } from 'vitest';
import { SseParser, sseFrame, SSE_HEARTBEAT } from '../../internal/wire';

/** The namespace event stream's frames (internal/wire/events.ts), written and read back in any pieces. */
describe('SseParser', () => {
  const stream = `${sseFrame('ready', { revision: 'r1' })}${SSE_HEARTBEAT}${sseFrame('change', { flags: ['a', 'b'] })}`;

  it('reads what sseFrame writes, heartbeats ignored', () => {
    expect(new SseParser().push(stream)).toEqual([
      { event: 'ready', data: '{"revision":"r1"}' },
      { event: 'change', data: '{"flags":["a","b"]}' },
    ]);
  });

  it('gives the same messages whatever the pieces the text arrives in, down to one character at a time', () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const parser = new SseParser();
      const got = [];
      for (let i = 0; i < stream.length; i += size) got.push(...parser.push(stream.slice(i, i + size)));
      expect(got.map((m) => m.event)).toEqual(['ready', 'change']);
    }
  });

  it('reads CRLF and CR line ends, several data lines, a missing event name, other fields', () => {
    const parser = new SseParser();
    expect(parser.push('id: 1\r\ndata: one\rdata:two\n\r\n')).toEqual([{ event: 'message', data: 'one\ntwo' }]);
    // A CR at a piece's end waits for a possible LF.
    expect(parser.push('event: x\r')).toEqual([]);
    expect(parser.push('\ndata: y\r\n\r\n')).toEqual([{ event: 'x', data: 'y' }]);
    // A blank line without data dispatches nothing.
    expect(parser.push('event: lonely\n\n')).toEqual([]);
  });
});
