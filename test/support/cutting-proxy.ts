/**
 * An HTTP proxy in front of an MCP endpoint that can cut calls: a `tools/call` of a tool named in
 * `cut` is forwarded (it runs on the server) but its response stream is ended empty, as a proxy
 * that times out a long call, or a server that drops it, would. Everything else passes through,
 * streams included.
 *
 * @example
 * const proxy = await startCuttingProxy(upstream.url);
 * proxy.cut.add('deploy_service'); // the next deploy runs, and its caller hears nothing
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodyOf, forwardedHeaders } from './proxy-request.js';

export interface CuttingProxy {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Names of the tools whose calls are cut. */
  cut: Set<string>;
  stop(): Promise<void>;
}

/**
 * `reached(tool)`, when given, resolves once a cut call has started running on the server (for a
 * tool that answers only much later); otherwise the cut waits for the server's response headers.
 */
export async function startCuttingProxy(
  upstream: string,
  reached?: (tool: string) => Promise<void>,
): Promise<CuttingProxy> {
  const cut = new Set<string>();
  const server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    const headers = forwardedHeaders(req);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    let cutTool: string | undefined;
    if (body) {
      const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string } };
      const name = message.params?.name ?? '';
      if (message.method === 'tools/call' && cut.has(name)) cutTool = name;
    }
    const ran = cutTool && reached ? reached(cutTool) : undefined;
    const replying = fetch(upstream, {
      method: req.method ?? 'GET',
      headers,
      ...(body ? { body: new Uint8Array(body) } : {}),
      signal: abort.signal,
    }).catch(() => undefined);
    if (cutTool) {
      await (ran ? Promise.race([replying, ran]) : replying);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
      return;
    }
    const reply = await replying;
    if (!reply) return void res.destroy();
    res.writeHead(reply.status, Object.fromEntries(reply.headers));
    if (!reply.body) return void res.end();
    try {
      for await (const chunk of reply.body) res.write(chunk);
    } catch {
      // The client went away: the abort above stops the upstream read.
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    cut,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
