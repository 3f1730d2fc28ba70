import { FliptClient, type NodeFliptClient } from '@flipt-io/flipt-client-js';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy on 127.0.0.1 that records what a real client put on the wire.
 * It only forwards bytes; every answer comes from the real server.
 */
export interface Exchange {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Tap {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

export async function startTap(target: string): Promise<Tap> {
  const upstream = new URL(target);
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
        (up) => {
          exchanges.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: body.toString('utf8'), status: up.statusCode ?? 0 });
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** FliptClient.init, without its harmless "deprecated parameters" console.warn. */
export async function initClient(url: string, namespace: string, updateInterval = 1): Promise<NodeFliptClient> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('deprecated parameters for the initialization function')) warn(...args);
  };
  try {
    // The package's type is the browser build's; under Node the node build (with close()) loads.
    return (await FliptClient.init({ url, namespace, updateInterval })) as unknown as NodeFliptClient;
  } finally {
    console.warn = warn;
  }
}
