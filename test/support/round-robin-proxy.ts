/**
 * A tiny HTTP balancer for the replica tests: each request goes to the next upstream (or where
 * `pick` says), streamed both ways, with no stickiness of any kind. An upstream that dies mid-
 * response drops the client's connection, as a real balancer would.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** Which upstream each request went to, in order, with its method. */
  log: { upstream: number; method: string }[];
  close(): Promise<void>;
}

/** Chooses the upstream for the `n`th request (0-based); default: round robin. */
export type Pick = (req: IncomingMessage, n: number, upstreams: number) => number | Promise<number>;

export async function startProxy(upstreams: string[], pick?: Pick): Promise<Balancer> {
  const targets = upstreams.map((u) => new URL(u));
  const log: Balancer['log'] = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    const index = await (pick ?? ((_r, i, count) => i % count))(req, n++, targets.length);
    log.push({ upstream: index, method: req.method ?? '' });
    const target = targets[index] as URL;
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        answer.once('error', () => res.destroy());
        answer.once('aborted', () => res.destroy());
      },
    );
    upstream.once('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream unreachable');
      else res.destroy();
    });
    // The client went away: so does the upstream request (the replica sees the drop).
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    log,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
