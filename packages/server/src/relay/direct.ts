/**
 * Replica to replica without Redis between them: a relay's messages — the same sealed messages
 * that go on the Redis channels — sent on a TCP connection from the requesting replica to the
 * holder, the holder's replies coming back on it. One hop each way instead of a PUBLISH to Redis
 * and Redis's write to the subscriber: on one host, a round trip of about 25 µs against 240 µs.
 *
 * A connection is only a route, never a credential: every message on it is opened like one from
 * Redis (its AES-GCM tag bound to sender, receiver, nonce and expiry; refused when seen before).
 * A connection starts with a `hello` each way, sealed to the replica it means to reach, so a
 * requester never sends a request to whatever answers at an address it found in Redis (another
 * replica since restarted there): until the holder's `hello` has opened, the relay goes through
 * Redis. A connection that sends anything that does not open, a message from another replica than
 * the one it greeted with, or no `hello` within `helloTimeoutMs` is closed.
 *
 * A connection is trusted as alive only on its peer's word on it: while a relay waits on it, or is
 * held for it, a sealed `ping` goes on it every so often, and the peer must be heard from on it in
 * time — its `pong`, or anything else: the bytes of a long message, which a `pong` waits behind on
 * a slow network — or the connection is closed and its relays end as when it is lost (`Link`'s
 * `use`). TCP's keepalive is no such word: it gives up only after about 20 s, and never on a peer
 * whose kernel, or a middlebox holding the connection, answers its probes while the packets of the
 * connection itself are lost. Only a peer that said it answers pings is pinged (one of an earlier
 * version refuses the frame); an idle connection is not pinged at all.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** Where a replica listens for others' connections (`createRedisRelay`'s `direct`). */
export interface DirectOptions {
  /** The interface to listen on. Default `127.0.0.1` (replicas on one host). */
  host?: string;
  /** The port; 0 (the default) picks a free one. */
  port?: number;
  /**
   * `host:port` other replicas connect to, written in the session directory. Default `host:port`
   * as listened on; required when `host` is a wildcard (`0.0.0.0`, `::`).
   */
  advertise?: string;
  /** How long a connection has to greet (its `hello` opened) before it is closed, ms. Default 5 s. */
  helloTimeoutMs?: number;
  /**
   * At most this many connections from other replicas at once. Default 1,024. At the limit, a new
   * connection takes the place of the oldest one not yet greeted (whoever can reach the port could
   * otherwise hold every place with connections that never greet); with every place greeted, it is
   * refused.
   */
  maxConnections?: number;
}

/** The longest message on a connection: a frame carries at most the SDK's 4 MB body, in base64, sealed. */
export const MAX_LINK_MESSAGE = 8 * 1024 * 1024;
/**
 * The longest message on a connection not yet greeted: its first is a `hello` (a few hundred
 * bytes), so whoever reaches the port cannot make a replica hold megabytes per connection.
 */
export const MAX_HELLO = 4 * 1024;
/** Past this much written and not yet taken by the peer, the connection is closed (it stopped reading). */
const MAX_LINK_BACKLOG = 64 * 1024 * 1024;
/** How long a replica that refused a connection is left alone before the next try, ms. */
const RETRY_MS = 5_000;
/** Past this many replicas known here, refusals whose wait is over are forgotten. */
const MAX_REFUSALS = 1_024;

const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** `host:port` split, or undefined for anything else (a directory entry is not trusted to be well formed). */
export function parseAddress(address: string): { host: string; port: number } | undefined {
  const m = ADDRESS.exec(address);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65_535) return undefined;
  const host = (m[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/**
 * How a connection in use is watched (`Link.use`): a `ping` every `everyMs`, and the connection
 * closed when nothing has come from the peer on it within `withinMs` of one.
 */
export interface LinkLiveness {
  everyMs: number;
  withinMs: number;
  /** The `ping` numbered `p`, sealed to `peer`. */
  ping(peer: string, p: number): string;
}

/**
 * One connection between two replicas, framed: each message a 4-byte big-endian length and that
 * many bytes of UTF-8. `peer` is set once the other side's `hello` opened.
 */
export class Link {
  peer: string | undefined;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  private readonly onClose: (() => void)[] = [];
  /** The peer said it answers pings (`answering`). */
  private answers = false;
  /** Relays waiting on it or held for it now (`use`), and a message from the peer arriving (`read`). */
  private users = 0;
  /** A message from the peer is part way in (`read`): counted in `users` while it is. */
  private receiving = false;
  private pinger: ReturnType<typeof setInterval> | undefined;
  /**
   * When the first `ping` since the peer was last heard from went (`performance.now()`): the
   * peer's silence is counted from it. Undefined while none went since.
   */
  private asked: number | undefined;
  /** When the peer must have been heard from by (`asked` and `withinMs`), and its timer. */
  private dueAt = 0;
  private due: ReturnType<typeof setTimeout> | undefined;
  /** When bytes last came from the greeted peer (`performance.now()`). */
  private heardAt = Number.NEGATIVE_INFINITY;
  /** The number of the next `ping`. */
  private pings = 0;

  constructor(
    readonly socket: Socket,
    /** Opened here (the holder's side of a requester's connection). */
    readonly inbound: boolean,
    private readonly deliver: (message: string, link: Link) => void,
    /** The replica this side connected to reach: only its `hello` greets the connection. */
    readonly expects?: string,
    /** How it is watched while in use; without it, it is not. */
    private readonly liveness?: LinkLiveness,
  ) {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => {});
    socket.on('close', () => this.close());
  }

  /**
   * A relay waits on it, or is held for it: until the function returned is called (once; more
   * calls do nothing), the peer — once it said it answers (`answering`) — is pinged every
   * `everyMs`, and the connection closed once nothing came from the peer on it (a `pong`, a ping
   * of its own, any byte of a message) for `withinMs` of a `ping`, this replica listening all
   * along. Pinged only while some relay uses it.
   */
  use(): () => void {
    this.users++;
    this.watch();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) this.unwatch();
    };
  }

  /**
   * The peer answers pings: its directory entry says so (this side connected to it), it asked
   * for them on a request it sent on this connection, or it pinged.
   */
  answering(): void {
    this.answers = true;
    this.watch();
  }

  private watch(): void {
    const liveness = this.liveness;
    if (!liveness || this.pinger || !this.answers || this.users === 0 || this.closed) return;
    this.pinger = setInterval(() => this.ping(liveness), liveness.everyMs);
    (this.pinger as { unref?: () => void }).unref?.();
    // The first ping on a connection goes at once, ahead of what this side sends next: the peer
    // learns that this side answers before a long message of this side's could hold it back.
    if (this.pings === 0) this.ping(liveness);
  }

  /**
   * Sends the next `ping` — one every `everyMs`, answered or not: the peer hears this side even
   * while its `pong`s wait behind a long message (of either side's) on a slow network. The first
   * since the peer was last heard from starts counting its silence.
   */
  private ping(liveness: LinkLiveness): void {
    const peer = this.peer;
    if (peer === undefined || this.closed) return;
    const now = performance.now();
    if (this.asked === undefined || this.heardAt >= this.asked) {
      this.asked = now;
      this.arm(liveness, now + liveness.withinMs);
    }
    this.send(liveness.ping(peer, this.pings++));
  }

  private arm(liveness: LinkLiveness, at: number): void {
    clearTimeout(this.due);
    this.dueAt = at;
    this.due = setTimeout(
      () => {
        this.due = undefined;
        const late = performance.now() - this.dueAt;
        // Judged after what came meanwhile is read: timers run before the loop reads its sockets,
        // and one that fired late (this replica busy) would judge the peer without its bytes.
        const judging = setImmediate(() => this.judge(liveness, late));
        (judging as { unref?: () => void }).unref?.();
      },
      Math.max(0, at - performance.now()),
    );
    (this.due as { unref?: () => void }).unref?.();
  }

  /**
   * The peer's time is up (`late`: how late its timer fired): taken for gone only when nothing
   * came from it on the connection for `withinMs` of a ping — a `pong` behind a long message is no
   * silence — and never on a timer that fired more than a ping period late: this replica was not
   * listening then (its loop blocked: a long GC, sync work), nor, maybe, was the peer given its
   * chance (blocked with it, or its answer held by TCP after a pause): pinged again, it is given
   * its whole time again.
   */
  private judge(liveness: LinkLiveness, late: number): void {
    const asked = this.asked;
    if (this.closed || asked === undefined || this.due !== undefined) return;
    if (late > liveness.everyMs) {
      // Not listening for part of that time: asked again, and given its whole time again.
      this.asked = undefined;
      this.ping(liveness);
      return;
    }
    // Heard from since: its silence is counted again from the next ping.
    if (this.heardAt >= asked) {
      this.asked = undefined;
      return;
    }
    if (performance.now() - asked < liveness.withinMs) {
      this.arm(liveness, asked + liveness.withinMs);
      return;
    }
    this.close();
  }

  private unwatch(): void {
    clearInterval(this.pinger);
    this.pinger = undefined;
    clearTimeout(this.due);
    this.due = undefined;
    this.asked = undefined;
  }

  /** Whether it carries messages to `replica`: greeted, and still open. */
  reaches(replica: string): boolean {
    return !this.closed && this.peer === replica;
  }

  /** Sends one message; false when the connection is gone (or was just closed for a backlog its peer does not read). */
  send(message: string): boolean {
    if (this.closed) return false;
    const length = Buffer.byteLength(message);
    if (length > MAX_LINK_MESSAGE) return false;
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32BE(length);
    this.socket.cork();
    this.socket.write(head);
    this.socket.write(message);
    this.socket.uncork();
    if (this.socket.writableLength > MAX_LINK_BACKLOG) {
      this.close();
      return false;
    }
    return true;
  }

  /** Whether it is still open (closed once, by either side, it stays closed). */
  get open(): boolean {
    return !this.closed;
  }

  /** Runs `then` once, when the connection closes (at once if it has). */
  closing(then: () => void): void {
    if (this.closed) then();
    else this.onClose.push(then);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    this.chunks = [];
    this.socket.destroy();
    for (const then of this.onClose.splice(0)) then();
  }

  private read(chunk: Buffer): void {
    // Bytes from the greeted peer are word from it: a message part way in (a long one, on a slow
    // network) holds back its next `pong`, not its life. What does not open closes the connection.
    if (this.peer !== undefined) this.heardAt = performance.now();
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (!this.closed && this.buffered >= 4) {
      const first = this.chunks[0] as Buffer;
      const head = first.length >= 4 ? first : Buffer.concat(this.chunks, 4);
      const length = head.readUInt32BE(0);
      if (length > (this.peer === undefined ? MAX_HELLO : MAX_LINK_MESSAGE)) {
        this.close();
        return;
      }
      if (this.buffered < 4 + length) break;
      const all = this.chunks.length === 1 ? first : Buffer.concat(this.chunks, this.buffered);
      const message = all.toString('utf8', 4, 4 + length);
      const rest = all.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      this.deliver(message, this);
    }
    this.arriving();
  }

  /**
   * While a message from the peer is part way in, the connection is in use: the peer, sending a
   * long one, may wait on a `pong` of this side's held behind it, or hear nothing else — pinged,
   * it hears this side.
   */
  private arriving(): void {
    const partial = !this.closed && this.peer !== undefined && this.buffered > 0;
    if (partial === this.receiving) return;
    this.receiving = partial;
    if (partial) {
      this.users++;
      this.watch();
    } else if (--this.users === 0) this.unwatch();
  }
}

/**
 * A replica's connections to and from other replicas: the listener others connect to, and the
 * connection this replica keeps to each holder it relays to.
 */
export class Links {
  private server: Server | undefined;
  private readonly inbound = new Set<Link>();
  /** Holder replica → its connection (greeting or greeted); a refused one → when to try again. */
  private readonly outbound = new Map<string, Link | number>();
  private address: string | undefined;

  constructor(
    private readonly options: DirectOptions,
    private readonly on: {
      /** A message arrived on a connection. */
      message: (message: string, link: Link) => void;
      /** The greeting to send on a new connection to `replica`, sealed to it. */
      hello: (replica: string) => string;
      /** A connection closed: what was relayed on it ends. */
      lost: (link: Link) => void;
    },
    /** How each connection is watched while relays use it (`Link.use`). */
    private readonly liveness?: LinkLiveness,
  ) {
    const host = options.host ?? '127.0.0.1';
    if (options.advertise === undefined && WILDCARDS.has(host))
      throw new TypeError(
        `direct.host ${host} listens on every interface: set direct.advertise to the host:port other replicas reach this one at`,
      );
    if (options.advertise !== undefined && !parseAddress(options.advertise))
      throw new TypeError(`direct.advertise must be host:port (got ${JSON.stringify(options.advertise)})`);
  }

  /** Starts listening; resolves with the address written in the directory. */
  async listen(): Promise<string> {
    const host = this.options.host ?? '127.0.0.1';
    const helloMs = this.options.helloTimeoutMs ?? 5_000;
    const max = this.options.maxConnections ?? 1_024;
    const server = createServer((socket) => {
      if (this.inbound.size >= max && !this.makeRoom()) {
        socket.destroy();
        return;
      }
      const link = new Link(socket, true, this.on.message, undefined, this.liveness);
      this.inbound.add(link);
      const timer = setTimeout(() => link.peer === undefined && link.close(), helloMs);
      (timer as { unref?: () => void }).unref?.();
      link.closing(() => {
        clearTimeout(timer);
        this.inbound.delete(link);
        this.on.lost(link);
      });
    });
    server.on('error', () => {});
    const port = this.options.port ?? 0;
    await new Promise<void>((resolve, reject) => {
      const refused = (error: NodeJS.ErrnoException) =>
        reject(
          Object.assign(
            new Error(
              `the relay cannot listen on ${host}:${port} for the other replicas: ${error.code ?? error.message}`,
            ),
            { code: error.code },
          ),
        );
      server.once('error', refused);
      server.listen(port, host, () => {
        server.off('error', refused);
        resolve();
      });
    });
    this.server = server;
    const bound = (server.address() as { port: number }).port;
    this.address = this.options.advertise ?? (host.includes(':') ? `[${host}]:${bound}` : `${host}:${bound}`);
    return this.address;
  }

  /**
   * Closes the oldest connection from another replica not yet greeted (a Set iterates in the order
   * they came); false when every one has greeted.
   */
  private makeRoom(): boolean {
    for (const link of this.inbound)
      if (link.peer === undefined) {
        link.close();
        return true;
      }
    return false;
  }

  /** Connections open, both ways, greeted or not. */
  get open(): number {
    let n = this.inbound.size;
    for (const link of this.outbound.values()) if (link instanceof Link && link.open) n++;
    return n;
  }

  /** The address others reach this replica at, once listening. */
  get advertised(): string | undefined {
    return this.address;
  }

  /**
   * The greeted connection to `holder` at `address`, or undefined while there is none: then one
   * is started (unless the last try was refused moments ago) and this relay goes through Redis.
   */
  to(holder: string, address: string): Link | undefined {
    const known = this.outbound.get(holder);
    if (known instanceof Link) return known.reaches(holder) ? known : undefined;
    if (known !== undefined && known > Date.now()) return undefined;
    const where = parseAddress(address);
    if (!where || this.server === undefined) return undefined;
    const socket = createConnection(where);
    const link = new Link(socket, false, this.on.message, holder, this.liveness);
    this.outbound.set(holder, link);
    socket.once('connect', () => link.send(this.on.hello(holder)));
    const timer = setTimeout(() => link.peer === undefined && link.close(), this.options.helloTimeoutMs ?? 5_000);
    (timer as { unref?: () => void }).unref?.();
    link.closing(() => {
      clearTimeout(timer);
      this.on.lost(link);
      // Never greeted: leave that address alone a while. Greeted and lost: reconnect on next use.
      if (this.outbound.get(holder) !== link) return;
      if (link.peer !== undefined) {
        this.outbound.delete(holder);
        return;
      }
      // Replicas come and go under new ids: the refusals of those gone are not kept for ever.
      if (this.outbound.size > MAX_REFUSALS)
        for (const [id, until] of this.outbound)
          if (typeof until === 'number' && until <= Date.now()) this.outbound.delete(id);
      this.outbound.set(holder, Date.now() + RETRY_MS);
    });
    return undefined;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    for (const link of this.inbound) link.close();
    for (const link of this.outbound.values()) if (link instanceof Link) link.close();
    this.outbound.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
