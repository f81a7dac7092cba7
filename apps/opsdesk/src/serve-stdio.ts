import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locale } from '@elicitkit/server';
import { toWebRequest } from '@modelcontextprotocol/node';
import { hostHeaderValidationResponse, localhostAllowedHostnames } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { ensureLocalOwner, findUser, listUsers } from './identity.js';
import { createOpsdesk, type Opsdesk, osUser } from './opsdesk.js';
import { send } from './serve-http.js';

/** How `serveStdioOpsdesk` runs. */
export interface ServeStdioOptions {
  dataDir: string;
  locale: Locale;
  /** Who every call is from; default the OS user (added on first start as a local owner). */
  user?: string;
  /** Port of the loopback password page; default a free one. */
  pagePort?: number;
  /** Per-question timeout (default 10 minutes). */
  timeoutMs?: number;
}

/** opsdesk on stdio, and the password page beside it. */
export interface StdioServing {
  opsdesk: Opsdesk;
  /** Where the password page is served on loopback. */
  pageUrl: string;
  close(): Promise<void>;
}

/**
 * Serves opsdesk over stdio as `user` (default: the OS user, added on first start as a local owner
 * of every project). The password page still needs a browser, so a loopback web listener serves
 * it beside the stdio connection; both stop when stdin closes.
 *
 * @example
 * const serving = await serveStdioOpsdesk({ dataDir: defaultDataDir(), locale: localeFrom(process.env.LANG) });
 * console.error(`password page: ${serving.pageUrl}`);
 */
export async function serveStdioOpsdesk(options: ServeStdioOptions): Promise<StdioServing> {
  const os = osUser();
  const user = options.user ?? os;
  const opsdesk = createOpsdesk({
    dataDir: options.dataDir,
    locale: options.locale,
    identify: () => user,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  if (user === os) ensureLocalOwner(opsdesk.db, user);
  if (!findUser(opsdesk.db, user)) {
    const known = listUsers(opsdesk.db).map((u) => u.username);
    await opsdesk.close();
    throw new Error(`Unknown user "${user}". Known users: ${known.join(', ')}.`);
  }
  const page = createServer((req, res) => {
    void (async () => {
      const request = await toWebRequest(req as Parameters<typeof toWebRequest>[0], undefined, {
        maxRequestBodySize: 64 * 1024,
      });
      const response =
        hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? (await opsdesk.links.handle(request));
      if (response) return send(res, response);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    page.once('error', reject);
    page.listen(options.pagePort ?? 0, '127.0.0.1', () => resolve());
  });
  const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  opsdesk.links.setBaseUrl(pageUrl);
  const handle = serveStdio(() => opsdesk.createServer());
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    page.close();
    page.closeAllConnections();
    await handle.close().catch(() => {});
    await opsdesk.close();
  };
  // The client closing its end of the pipe ends the session (MCP stdio binding).
  process.stdin.once('end', () => void close());
  process.stdin.once('close', () => void close());
  return { opsdesk, pageUrl, close };
}
