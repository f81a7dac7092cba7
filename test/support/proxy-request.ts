/**
 * What the test proxies (`cutting-proxy.ts`, `dropping-proxy.ts`) pass on of a request: its body,
 * read whole, and its end-to-end headers (hop-by-hop ones are the proxy's own).
 */
import type { IncomingMessage } from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).filter(([k, v]) => !HOP_BY_HOP.has(k) && typeof v === 'string') as [string, string][],
  );
}
