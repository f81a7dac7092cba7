/**
 * An HTTP proxy in front of one or more MCP endpoints that drops a call's response stream in the
 * middle: the response of a `tools/call` POST is passed on up to its first `events` SSE events
 * (the priming event is the first), then the connection to the client is cut, as a flaky network
 * or a proxy's idle timeout would. `route` picks the upstream for each request (default: the first).
 *
 * @example
 * const proxy = await startDroppingProxy([server.url]); // every tools/call stream drops after its priming event
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyOf, forwardedHeaders } from './proxy-request.js';

export interface DroppingProxy {
  url: string;
  /** Each request as it went by: its method, upstream, and `Last-Event-ID` if any. */
  log: { method: string; upstream: number; lastEventId?: string; dropped?: boolean }[];
  stop(): Promise<void>;
}

export async function startDroppingProxy(
  upstreams: string[],
  options: { events?: number; route?: (req: IncomingMessage, n: number) => number } = {},
): Promise<DroppingProxy> {
  const events = options.events ?? 1;
  const log: DroppingProxy['log'] = [];
  let count = 0;
  const server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    const upstream = options.route?.(req, count) ?? 0;
    count++;
    const headers = forwardedHeaders(req);
    const entry: DroppingProxy['log'][number] = { method: req.method ?? 'GET', upstream };
    if (headers['last-event-id']) entry.lastEventId = headers['last-event-id'];
    log.push(entry);
    const isCall =
      body !== undefined && (JSON.parse(body.toString('utf8')) as { method?: string }).method === 'tools/call';
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const reply = await fetch(upstreams[upstream] as string, {
      method: req.method ?? 'GET',
      headers,
      ...(body ? { body: new Uint8Array(body) } : {}),
      signal: abort.signal,
    }).catch(() => undefined);
    if (!reply) return void res.destroy();
    res.writeHead(reply.status, Object.fromEntries(reply.headers));
    if (!reply.body) return void res.end();
    const sse = isCall && (reply.headers.get('content-type') ?? '').startsWith('text/event-stream');
    let seen = '';
    try {
      for await (const chunk of reply.body) {
        if (!sse) {
          res.write(chunk);
          continue;
        }
        seen += Buffer.from(chunk).toString('utf8');
        const parts = seen.split('\n\n');
        if (parts.length - 1 >= events) {
          entry.dropped = true;
          abort.abort();
          // Cut once what went before is on its way: the rest of this response never reaches the client.
          res.write(`${parts.slice(0, events).join('\n\n')}\n\n`, () => setTimeout(() => res.destroy(), 10));
          return;
        }
      }
    } catch {
      // The client went away: the abort above stops the upstream read.
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    log,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
