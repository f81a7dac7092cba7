import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locale } from '@elicitkit/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { accountIdentity, ensureLocalOwner, findUser, listUsers } from './identity.js';
import { createOpsdesk, type Opsdesk, osUser } from './opsdesk.js';
import { internalError, logError, routeName } from './web/last-resort.js';
import { servePasswordPage } from './web/page-route.js';

/** How `serveStdioOpsdesk` runs. */
export interface ServeStdioOptions {
  dataDir: string;
  /** A Postgres URL for opsdesk's own state; default SQLite in `dataDir`. */
  database?: string;
  locale: Locale;
  /** Who every call is from; default the OS user (added on first start as a local owner). */
  user?: string;
  /** Port of the loopback password page; default a free one. It is opened when a password question first needs it. */
  pagePort?: number;
  /** Per-question timeout (default 10 minutes). */
  timeoutMs?: number;
}

/** opsdesk on stdio, and the password page beside it. */
export interface StdioServing {
  opsdesk: Opsdesk;
  /** Where the password page is served on loopback, once a password question has opened it. */
  pageUrl(): string | undefined;
  close(): Promise<void>;
}

/**
 * Serves opsdesk over stdio as `user` (default: the OS user, added on first start as a local owner
 * of every project). The password page still needs a browser, so a loopback web listener serves
 * it beside the stdio connection, opened when a password question first needs it; both stop when
 * stdin closes.
 *
 * @example
 * const serving = await serveStdioOpsdesk({ dataDir: defaultDataDir(), locale: localeFrom(process.env.LANG) });
 * console.error(`password page: ${serving.pageUrl() ?? 'opened when first needed'}`);
 */
export async function serveStdioOpsdesk(options: ServeStdioOptions): Promise<StdioServing> {
  const os = osUser();
  const user = options.user ?? os;
  // The account holding `user` when this process starts, looked up once: every call is that
  // account's, under whatever name it has later; once it is removed, calls are refused, even if
  // another account is made under the name.
  let identity: string | undefined;
  const opsdesk = await createOpsdesk({
    dataDir: options.dataDir,
    ...(options.database ? { database: options.database } : {}),
    locale: options.locale,
    identify: () => identity,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  // A start that fails from here closes what createOpsdesk opened (its database, its shop).
  try {
    if (user === os) await opsdesk.store.transaction(ensureLocalOwner(user));
    const account = await opsdesk.store.run(findUser(user));
    if (!account) {
      const known = (await opsdesk.store.run(listUsers())).map((u) => u.username);
      throw new Error(`Unknown user "${user}". Known users: ${known.join(', ')}.`);
    }
    identity = accountIdentity(account.id);
  } catch (error) {
    await opsdesk.close();
    throw error;
  }
  const page = createServer((req, res) => {
    servePasswordPage(req, res, opsdesk.links, options.locale).catch((error: unknown) => {
      // The detail goes to stderr (the MCP client's log of this server), never to the page.
      logError(error, `${req.method ?? '?'} ${routeName(req.url)}`);
      internalError(res);
    });
  });
  // Opened lazily: most sessions never register a user, so most opsdesk processes never listen.
  opsdesk.links.setOpener(
    () =>
      new Promise<string>((resolve, reject) => {
        const port = options.pagePort ?? 0;
        const onError = (error: NodeJS.ErrnoException) =>
          reject(new Error(`the password page cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`));
        page.once('error', onError);
        page.listen(port, '127.0.0.1', () => {
          page.off('error', onError);
          resolve(`http://127.0.0.1:${(page.address() as AddressInfo).port}`);
        });
      }),
  );
  const handle = serveStdio(() => opsdesk.createServer());
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (page.listening) {
      page.close();
      page.closeAllConnections();
    }
    await handle.close().catch(() => {});
    await opsdesk.close();
  };
  // The client closing its end of the pipe ends the session (MCP stdio binding).
  process.stdin.once('end', () => void close());
  process.stdin.once('close', () => void close());
  return { opsdesk, pageUrl: () => opsdesk.links.baseUrl(), close };
}
