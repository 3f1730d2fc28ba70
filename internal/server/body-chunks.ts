import type { IncomingMessage } from 'node:http';

/**
 * A request body as the chunks it arrives in, up to `limit` bytes: a declared (Content-Length)
 * or received size over the limit calls `tooLarge` once and stops reading (the caller answers
 * 413, and oversized.ts reads and discards the rest); otherwise `done` gets the chunks and
 * their total size. Nothing is joined here: the caller decides where that copy is made.
 */
export function readChunks(req: IncomingMessage, limit: number, done: (chunks: Buffer[], size: number) => void, tooLarge: () => void): void {
  if (Number(req.headers['content-length'] ?? 0) > limit) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    req.off('data', onData);
    req.off('end', onEnd);
    tooLarge();
  };
  const onEnd = () => done(chunks, size);
  req.on('data', onData);
  req.on('end', onEnd);
}
