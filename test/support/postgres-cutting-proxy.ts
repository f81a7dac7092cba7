/**
 * A TCP proxy in front of PostgreSQL that drops a connection at the worst moment of a commit, as a
 * flaky network would: the COMMIT never reaches the server, or the server commits and its reply
 * is lost. Shared by the tests of everything that commits on Postgres.
 *
 * @example
 * const proxy = await commitCuttingProxy(server.port);
 * const cut = proxy.arm('COMMIT', 'reply'); // the next COMMIT commits, and its caller hears nothing
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server, Socket } from 'node:net';

/**
 * What the proxy cuts: the client's message before the server gets it (`message`), the connection
 * right after the server got it, before any answer (`sent`: the server runs it with nobody left to
 * answer), or the server's reply to it once it committed (`reply`).
 */
export type Cut = 'message' | 'sent' | 'reply';

/**
 * A TCP proxy to PostgreSQL. Armed with a pattern, it cuts the connection at the next client
 * message containing it: before the server gets it (`message`), as soon as it is handed on
 * (`sent`), or once the server has answered it with `COMMIT` (it committed), swallowing that
 * answer (`reply`). `freeze` then also stops every
 * other connection through it, as a database that no longer answers, until `thaw`.
 */
export async function commitCuttingProxy(port: number) {
  let armed:
    | { pattern: string; cut: Cut; freeze: boolean; connection: string | undefined; after: string | undefined }
    | undefined;
  let frozen = false;
  let dropped = () => {};
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    let swallowing: { freeze: boolean } | undefined;
    let severed = false;
    let held = '';
    // The connection's startup message (its user and database), for a cut armed on some only.
    let startup: string | undefined;
    // Whether this connection sent the message a cut armed `after` waits for.
    let primed: string | undefined;
    const cut = (freeze: boolean) => {
      client.destroy();
      upstream.destroy();
      frozen = freeze;
      dropped();
    };
    upstream.connect(port, '127.0.0.1');
    client.on('data', (chunk: Buffer) => {
      if (frozen) return;
      startup ??= chunk.toString('latin1');
      const at = armed;
      if (at?.after !== undefined && chunk.toString('latin1').includes(at.after)) primed = at.after;
      const ours =
        (at?.connection === undefined || startup.includes(at.connection)) &&
        (at?.after === undefined || primed === at.after);
      if (at && ours && chunk.toString('latin1').includes(at.pattern)) {
        armed = undefined;
        if (at.cut === 'message') return cut(at.freeze);
        if (at.cut === 'sent') {
          // Handed on whole, then the connection's end: the server reads the message, runs it, and
          // finds nobody to answer. Its answer goes nowhere.
          severed = true;
          upstream.end(chunk);
          client.destroy();
          frozen = at.freeze;
          return dropped();
        }
        swallowing = { freeze: at.freeze };
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (frozen || severed) return;
      if (!swallowing) return void client.write(chunk);
      held += chunk.toString('latin1');
      // CommandComplete "COMMIT": the server committed the transaction.
      if (held.includes('COMMIT\0')) cut(swallowing.freeze);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    // A severed connection's server side ends on its own, once the server has read all it was sent.
    client.on('close', () => severed || upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://postgres@127.0.0.1:${(server.address() as AddressInfo).port}/postgres`,
    /**
     * Resolves once the connection is cut. `connection`: only on a connection whose startup
     * message holds it (a role's name, say); `after`: only on one that sent a message holding it
     * first (the transaction's own statement, say).
     */
    arm(
      pattern: string,
      cut: Cut,
      { freeze = false, connection, after }: { freeze?: boolean; connection?: string; after?: string } = {},
    ) {
      armed = { pattern, cut, freeze, connection, after };
      return new Promise<void>((resolve) => {
        dropped = resolve;
      });
    },
    /** Ends a freeze: every connection through it is dropped, new ones pass again. */
    thaw() {
      for (const socket of sockets) socket.destroy();
      frozen = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
