import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { withRedis } from '../../../../test/support/redis-server.js';
import { startProxy } from '../../../../test/support/round-robin-proxy.js';
import { httpTransport, loopback, patientClient, startDeploy } from '../../test/loopback.js';
import { dropSubscription, type Replica, relayHarness } from '../../test/relay-harness.js';
import { frameKey, open, sealUnchecked } from './frames.js';
import { createRedisRelay } from './redis-relay.js';

const REDIS = withRedis('relay/redis-relay.test.ts');

/** The headers of a raw request on an open 2025 session, as `token`. */
const onSession = (token: string, sessionId: string | undefined): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': sessionId as string,
  'mcp-protocol-version': '2025-11-25',
});

/** The secret the replicas share: frames are sealed with a key derived from it. */
const SECRET = 'relay-test-secret-0123456789abcdef0123456789';

describe.skipIf(!REDIS)('2025 sessions relayed across replicas through Redis', () => {
  const { h, replica, pair } = relayHarness(SECRET);
  const { replicas, clients } = h;

  /** A pair, and alice's deploy through it waiting on its question (never answered). */
  const asking = async (prefix: string) => {
    const replicasOf = await pair(prefix);
    const { client, asked } = patientClient();
    clients.push(client);
    const transport = httpTransport(replicasOf.url, 'alice');
    await client.connect(transport);
    const call = startDeploy(client);
    await asked;
    return { ...replicasOf, client, transport, call };
  };

  it('the production deploy: every request after initialize lands on the replica not holding the session', async () => {
    const { a, b, url } = await pair('every:');
    const client = new Client({ name: 'relayed', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const answers = [{ env: 'prod' }, { confirmed: true, ticket: 'REL-1001' }];
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: answers.shift() ?? {} }));
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    // The session, its questions and the effect live at the holder; the other replica only relayed.
    expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    expect(b.serving.store.deployments).toEqual([]);
    expect(a.serving.handler.sessionCount()).toBe(1);
    expect(b.serving.handler.sessionCount()).toBe(0);
    expect(h.proxy?.log.slice(1).every((entry) => entry.upstream === 1)).toBe(true);
    expect(h.proxy?.log.some((entry) => entry.method === 'GET')).toBe(true);
    // DELETE, relayed too, closes the session where it lives.
    await transport.terminateSession();
    expect(h.proxy?.log.at(-1)).toEqual({ upstream: 1, method: 'DELETE' });
    expect(a.serving.handler.sessionCount()).toBe(0);
    expect(b.relay.inFlight()).toBe(0);
  });

  it('round robin over both replicas: a decline and a cancel come back as they were given', async () => {
    const [a, b] = [await replica('rr:'), await replica('rr:')];
    h.proxy = await startProxy([a.serving.url, b.serving.url]);
    const client = new Client({ name: 'rr', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const actions = ['decline', 'cancel'] as const;
    client.setRequestHandler('elicitation/create', async () => ({ action: actions[0] }));
    clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    expect((await client.callTool({ name: 'deploy', arguments: { service: 's' } })).structuredContent).toMatchObject({
      status: 'declined',
    });
    client.setRequestHandler('elicitation/create', async () => ({ action: actions[1] }));
    expect((await client.callTool({ name: 'deploy', arguments: { service: 's' } })).structuredContent).toMatchObject({
      status: 'cancelled',
    });
    expect([...a.serving.store.deployments, ...b.serving.store.deployments]).toEqual([]);
    expect(new Set(h.proxy.log.map((entry) => entry.upstream))).toEqual(new Set([0, 1]));
  });

  it("another identity's session is unknown on every replica, and the holder is not even asked", async () => {
    const { a, url, transport, call } = await asking('idn:');
    const sessionId = transport.sessionId as string;
    for (const target of [url, a.serving.url]) {
      const response = await fetch(target, {
        method: 'POST',
        headers: onSession('mallory', sessionId),
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { message: 'Session not found' } });
    }
    expect(a.serving.store.deployments).toEqual([]);
    void call;
  });

  it('the holder dies mid-question: the call ends with an error, nothing is done, a late answer is refused at once', async () => {
    const { a, b, url, transport, call } = await asking('kill:');
    // As a killed process would: its Redis connections drop and its HTTP side stops answering.
    await a.relay.close();
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete/);
    expect(a.serving.store.deployments).toEqual([]);
    expect(b.relay.inFlight()).toBe(0);
    const late = await fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { env: 'dev' } } }),
    });
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: { message: 'Session not found' } });
    expect(a.serving.store.deployments).toEqual([]);
  });

  it('a cancel crosses too: the client gives up, the holder withdraws its question, nothing is done', async () => {
    const { a, b, url } = await pair('cancel:');
    const { client, asked: wasAsked, withdrawn: wasWithdrawn } = patientClient('quitter');
    clients.push(client);
    await client.connect(httpTransport(url, 'alice'));
    const controller = new AbortController();
    const call = startDeploy(client, controller.signal);
    await wasAsked;
    controller.abort('the person closed the tab');
    expect(await call).toBeInstanceOf(Error);
    // notifications/cancelled went b → a; a's withdrawal of elicitation/create came back a → b.
    await wasWithdrawn;
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    // The client going away ends the relays it left open (its GET stream, the cancelled call's stream).
    await client.close();
    await expect.poll(() => b.relay.inFlight()).toBe(0);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
  });

  it("the requester's Redis subscription drops mid-question: the call fails at once, the holder withdraws, the session lives on", async () => {
    const { a, b, client, transport, call } = await asking('sub:');
    // Pub/sub is at most once: what the holder publishes while b's subscription is down is lost.
    // Before the fix nothing noticed, and the call waited for an answer stream that had a hole.
    await dropSubscription(b, 'sub:');
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/did not complete: the relay lost its Redis subscription/);
    // The holder was told to drop the call: its question is withdrawn, nothing is deployed.
    expect((await a.serving.log.response('env')).action).toBe('cancel');
    expect(a.serving.store.deployments).toEqual([]);
    await expect.poll(() => a.relay.inFlight()).toBe(0);
    // The session was not forgotten: once b is subscribed again, the next call on it goes through.
    expect(await a.redis.exists(`sub:session:${transport.sessionId}`)).toBe(1);
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
    await expect
      .poll(async () =>
        Number(((await b.redis.pubsub('NUMSUB', `sub:replica:${b.relay.replica}`)) as [string, number])[1]),
      )
      .toBe(1);
    const again = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(again.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'staging' } });
    expect(a.serving.store.deployments).toHaveLength(1);
  });

  it('a request cut before its head by a dropped subscription gets 503 to retry, not "Session not found"', async () => {
    // The holder opens sessions on its real handler but runs relayed requests on one that never
    // answers: a relay waits for its head when b's subscription drops under it.
    const redis = new Redis(h.server.url);
    const relay = createRedisRelay(redis, { secret: SECRET, prefix: 'head:', livenessMs: 100 });
    const serving = await loopback({ authenticated: true, sessions: relay });
    replicas.push({ relay, redis, serving });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    await relay.serve({
      fetch: () => {
        entered();
        return new Promise<Response>(() => {});
      },
    });
    const b = await replica('head:');
    const client = new Client({ name: 'head', version: '1' });
    clients.push(client);
    const transport = httpTransport(serving.url, 'alice');
    await client.connect(transport);
    const url = b.serving.url;
    const pending = fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    await inside;
    await dropSubscription(b, 'head:');
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      error: { message: /lost its Redis subscription.*send the request again/ },
    });
    expect(await b.redis.exists(`head:session:${transport.sessionId}`)).toBe(1);
  });

  it('garbage on a replica channel is ignored; an oversize relayed body is refused with 413', async () => {
    const { a, b, url } = await pair('junk:');
    await a.redis.publish(`junk:replica:${a.relay.replica}`, 'not json');
    await a.redis.publish(`junk:replica:${a.relay.replica}`, JSON.stringify({ t: 'abort', r: 'nobody' }));
    const client = new Client({ name: 'after-junk', version: '1' });
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('deploy');
    const huge = await b.serving.handler.fetch(
      new Request(b.serving.url, {
        method: 'POST',
        headers: { ...onSession('alice', transport.sessionId), host: new URL(b.serving.url).host },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { pad: 'x'.repeat(5 * 1024 * 1024) },
        }),
      }),
    );
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: { message: /larger than/ } });
    // Within the bound as sent, past it as relayed: `1e9` is written back as `1000000000`.
    const sent = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { n: Array(900_000).fill(0) } });
    const grows = await b.serving.handler.fetch(
      new Request(b.serving.url, {
        method: 'POST',
        headers: { ...onSession('alice', transport.sessionId), host: new URL(b.serving.url).host },
        body: sent.replaceAll('0,', '1e9,'),
      }),
    );
    expect(grows.status).toBe(413);
    expect(await grows.json()).toMatchObject({ error: { message: /larger than/ } });
    // Refused here, before anything was relayed: the session still answers.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('deploy');
  });

  it('the holder keeps its sessions findable past their ttl by heartbeat, and forgets them when they close', async () => {
    const a = await replica('beat:', { sessionTtlMs: 3_300, timeoutMs: 2_000 });
    const client = new Client({ name: 'beat', version: '1' });
    clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const key = `beat:session:${transport.sessionId}`;
    expect(await a.redis.pttl(key)).toBeLessThanOrEqual(3_300);
    // Two ttls later the entry is still there: renewed, not merely long-lived.
    const since = Date.now();
    await expect
      .poll(async () => Date.now() - since > 6_600 && (await a.redis.exists(key)) === 1, { timeout: 15_000 })
      .toBe(true);
    await transport.terminateSession();
    await expect.poll(() => a.redis.exists(key)).toBe(0);
  });

  it('an entry dropped from the directory while its holder lives is written back by the next heartbeat', async () => {
    const a = await replica('back:', { sessionTtlMs: 3_300, timeoutMs: 2_000 });
    const client = new Client({ name: 'back', version: '1' });
    clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const key = `back:session:${transport.sessionId}`;
    const entry = await a.redis.get(key);
    // As a requester does when it finds nobody on the holder's channel (a brief disconnection).
    await a.redis.del(key);
    await expect.poll(() => a.redis.get(key), { timeout: 10_000 }).toBe(entry);
    await transport.terminateSession();
    await expect.poll(() => a.redis.exists(key)).toBe(0);
  });

  it('fails closed when Redis is down: a new session is refused with 503, a relayed request too', async () => {
    const { url } = await pair('down:');
    const client = new Client({ name: 'down', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    clients.push(client);
    const transport = httpTransport(url, 'alice');
    await client.connect(transport);
    for (const r of replicas) r.redis.disconnect();
    const relayed = await fetch(url, {
      method: 'POST',
      headers: onSession('alice', transport.sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(relayed.status).toBe(503);
    expect(await relayed.json()).toMatchObject({ error: { message: /Redis/ } });
    const fresh = new Client({ name: 'fresh', version: '1' });
    clients.push(fresh);
    await expect(fresh.connect(httpTransport(url, 'alice'))).rejects.toThrow(/503|unavailable/i);
  });

  /** Every message published on the prefix's channels while `run` runs, as a sniffer subscribed to them sees it. */
  async function sniff<T>(prefix: string, run: () => Promise<T>): Promise<{ result: T; messages: string[] }> {
    const sniffer = new Redis(h.server.url);
    const messages: string[] = [];
    sniffer.on('pmessage', (_pattern: string, _channel: string, message: string) => messages.push(message));
    await sniffer.psubscribe(`${prefix}*`);
    try {
      const result = await run();
      return { result, messages };
    } finally {
      sniffer.disconnect();
    }
  }

  /** A message's envelope: the whole of an unsigned (`aead`) one, after the signature of a signed one. */
  const envelopeOf = (message: string) => JSON.parse(message.startsWith('{') ? message : message.slice(44));
  /** A sealed message's envelope and, opened with the replicas' secret, its (first) frame (whoever it is for). */
  const inside = (message: string) => {
    let envelope: { from: string; to: string };
    try {
      envelope = envelopeOf(message) as { from: string; to: string };
    } catch {
      return { from: '', to: '', f: {} as Record<string, unknown> };
    }
    const opened = open(frameKey(SECRET), envelope.to, message, new Map());
    return { ...envelope, f: ('frames' in opened ? opened.frames[0] : {}) as Record<string, unknown> };
  };

  /** The frames a sealed message carries, opened with the replicas' secret (none for anything else). */
  const framesIn = (message: string) => {
    try {
      const { to } = envelopeOf(message) as { to: string };
      const opened = open(frameKey(SECRET), to, message, new Map());
      return 'frames' in opened ? opened.frames : [];
    } catch {
      return [];
    }
  };

  /** The relay id of the `tools/call` request relayed among `messages` (its response is still streaming). */
  const liveCall = (messages: string[]) => {
    const request = messages.find((m) => {
      const { f } = inside(m);
      return (
        f.t === 'request' &&
        Buffer.from(String(f.body ?? ''), 'base64')
          .toString()
          .includes('"tools/call"')
      );
    });
    return request === undefined ? undefined : String(inside(request).f.r);
  };

  /** A message sealed with `secret` around any value `f` (encrypted and signed, unchecked). */
  const sealedRaw = (secret: string, envelope: { from: string; to: string; n: string; x: number; f: unknown }) =>
    sealUnchecked(frameKey(secret), envelope, envelope.f);
  /** Any JSON signed with `secret`'s key, not even an envelope. */
  const signedOnly = (secret: string, value: unknown) => {
    const json = JSON.stringify(value);
    return `${frameKey(secret).mac(json)}.${json}`;
  };
  const nonce = () => randomBytes(16).toString('base64url');

  /** Opens a session on the pair and starts a production deploy that waits at its second question; `answer` releases it. */
  async function pendingQuestion(prefix: string) {
    const { a, b, url } = await pair(prefix);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answers = [{ env: 'prod' }, { confirmed: true, ticket: 'REL-1001' }];
    const asked: string[] = [];
    const client = new Client({ name: 'held', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    let second!: () => void;
    const atSecond = new Promise<void>((resolve) => {
      second = resolve;
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      if (asked.length === 2) {
        second();
        await released;
      }
      return { action: 'accept', content: answers.shift() ?? {} };
    });
    clients.push(client);
    await client.connect(httpTransport(url, 'alice_s3cr3t0ken'));
    return { a, b, client, asked, atSecond, release };
  }

  it("a holder's replies written at once travel as one sealed message, unsigned between replicas that read that; to replicas of earlier versions, signed, and one frame a message to the oldest", async () => {
    const [a, b] = [await replica('batch:'), await replica('batch:')];
    const client = new Client({ name: 'batch', version: '1' });
    clients.push(client);
    const transport = httpTransport(a.serving.url, 'alice');
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    /** Whether each message was signed (`<mac>.<envelope>`) or unsigned (the envelope alone). */
    const signing: boolean[][] = [];
    /** `tools/list` on the session through `via`: the tools, and every frame sent meanwhile, message by message. */
    const listVia = async (via: Replica) => {
      const { result, messages } = await sniff('batch:replica:', async () => {
        const response = await fetch(via.serving.url, {
          method: 'POST',
          headers: onSession('alice', sessionId),
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
        });
        return { status: response.status, body: await response.text() };
      });
      expect(result.status).toBe(200);
      expect(result.body).toContain('"deploy"');
      signing.push(messages.map((m) => !m.startsWith('{')));
      return messages.map(framesIn);
    };
    // b found a's entry saying a takes `batch`: its request asks for batches, and a's head, data and
    // end, written at once, come in fewer messages than frames (one, unless the host is slow).
    // Each frame of the response carries its place in it (`seq` asked).
    const batched = await listVia(b);
    expect(batched[0]).toMatchObject([{ t: 'request', batch: true, aead: true, seq: true }]);
    expect(batched.slice(1).flatMap((frames) => frames.map((f) => [f.t, 'i' in f ? f.i : undefined]))).toEqual([
      ['head', 0],
      ['data', 1],
      ['end', 2],
    ]);
    expect(batched.length - 1).toBeLessThan(3);
    expect(signing.at(-1)?.every((signed) => !signed)).toBe(true);
    const key = `batch:session:${sessionId}`;
    const entry = (await a.redis.get(key)) as string;
    // Holder, owner, `batch`, `aead`, no address (it takes no direct connections), `identity`, `seq`, `ping`, `ack`, `whole`.
    expect(entry.split('\n').slice(2)).toEqual(['batch', 'aead', '', 'identity', 'seq', 'ping', 'ack', 'whole']);
    // The entry as the version before numbered responses writes it (six lines): a requester reading
    // it sends no `seq` (that holder would refuse it), and takes the response unnumbered.
    await a.redis.set(key, entry.split('\n').slice(0, 6).join('\n'), 'PX', 30_000);
    const unnumbered = await listVia(await replica('batch:'));
    expect(unnumbered[0]?.[0]).toMatchObject({ t: 'request', batch: true, aead: true });
    expect(unnumbered[0]?.[0]).not.toHaveProperty('seq');
    const replies = unnumbered.slice(1).flat();
    expect(replies.map((f) => f.t)).toEqual(['head', 'data', 'end']);
    expect(replies.some((f) => 'i' in f)).toBe(false);
    // The entry as the version before unsigned messages writes it (no fourth line): a requester
    // reading it still batches, but signs its request and sends no `aead`, and is answered signed.
    await a.redis.set(key, entry.split('\n').slice(0, 3).join('\n'), 'PX', 30_000);
    const previous = await listVia(await replica('batch:'));
    expect(previous[0]).toMatchObject([{ t: 'request', batch: true }]);
    expect(previous[0]?.[0]).not.toHaveProperty('aead');
    expect(previous.slice(1).flatMap((frames) => frames.map((f) => f.t))).toEqual(['head', 'data', 'end']);
    expect(signing.at(-1)?.every((signed) => signed)).toBe(true);
    // The entry as a replica of an earlier version writes it (holder and owner only): a requester
    // reading it sends no `batch` (that holder would refuse it), and is sent one frame a message.
    await a.redis.set(key, entry.split('\n').slice(0, 2).join('\n'), 'PX', 30_000);
    const c = await replica('batch:');
    const single = await listVia(c);
    expect(single[0]).toHaveLength(1);
    expect(single[0]?.[0]).toMatchObject({ t: 'request' });
    expect(single[0]?.[0]).not.toHaveProperty('batch');
    expect(single.slice(1).map((frames) => frames.map((f) => f.t))).toEqual([['head'], ['data'], ['end']]);
    expect(single[0]?.[0]).not.toHaveProperty('aead');
    expect(signing.at(-1)?.every((signed) => signed)).toBe(true);
  });

  it('a holder serving a plain `{ fetch }` (a handler wrapped by the host) runs relayed requests as the handler itself would', async () => {
    const [a, b] = [await replica('wrap:', { wrapped: true }), await replica('wrap:')];
    h.proxy = await startProxy([a.serving.url, b.serving.url], (_req, n) => (n === 0 ? 0 : 1));
    const client = new Client({ name: 'wrapped', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const answers = [{ env: 'prod' }, { confirmed: true, ticket: 'REL-1001' }];
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: answers.shift() ?? {} }));
    clients.push(client);
    await client.connect(httpTransport(h.proxy.url, 'alice'));
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect(result.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    expect(b.serving.store.deployments).toEqual([]);
  });

  it('no credential, answer or result crosses Redis readable: a sniffer sees no token, argument, answer or result, and every frame is sealed', async () => {
    const { messages, result } = await sniff('sniff:', async () => {
      const { a, client, atSecond, release } = await pendingQuestion('sniff:');
      const call = client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
      await atSecond;
      release();
      const done = await call;
      return { done, a };
    });
    expect(result.done.structuredContent).toMatchObject({ status: 'done', deployment: { env: 'prod' } });
    expect(result.a.serving.store.deployments).toHaveLength(1);
    const relayed = messages.filter((m) => framesIn(m).length > 0);
    expect(relayed.length).toBeGreaterThan(3);
    // Every message a replica sent opens with the replicas' secret; between two replicas that both
    // read them, each is unsigned: its encryption's tag is its one check.
    expect(relayed).toEqual(messages);
    for (const m of relayed) expect(m.startsWith('{')).toBe(true);
    for (const m of messages) {
      // Neither the arguments, nor the answers (the ticket), nor the result cross in clear.
      for (const clear of ['order-service', 'REL-1001', 'Deployed', 'tools/call', 'elicitation/create'])
        expect(m).not.toContain(clear);
      expect(m).not.toContain('s3cr3t0ken');
      expect(m.toLowerCase()).not.toContain('authorization');
      expect(m).not.toContain('Bearer');
    }
  });

  it('forged frames do nothing: unsigned, re-signed with another secret, altered, replayed or misdirected requests run no deploy; a forged response never reaches the client', async () => {
    const { result, messages } = await sniff('forge:', async () => {
      const held = await pendingQuestion('forge:');
      const call = held.client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
      await held.atSecond;
      return { ...held, call };
    });
    const { a, b, call, release } = result;
    // The frames sniffed while the call reached its second question, and any after.
    const spy = new Redis(h.server.url);
    const seen: string[] = [...messages];
    spy.on('pmessage', (_p: string, _c: string, m: string) => seen.push(m));
    await spy.psubscribe('forge:*');
    try {
      const tools = {
        jsonrpc: '2.0',
        id: 99,
        method: 'tools/call',
        params: { name: 'deploy', arguments: { service: 'forged', env: 'prod' } },
      };
      const aChannel = `forge:replica:${a.relay.replica}`;
      const bChannel = `forge:replica:${b.relay.replica}`;
      const request = (extra: Record<string, unknown> = {}) => ({
        t: 'request',
        r: crypto.randomUUID(),
        method: 'POST',
        url: a.serving.url,
        owner: '0'.repeat(64),
        headers: [
          ['content-type', 'application/json'],
          ['accept', 'application/json, text/event-stream'],
        ],
        body: Buffer.from(JSON.stringify(tools)).toString('base64'),
        ...extra,
      });
      const envelope = (f: unknown, to = a.relay.replica) => ({
        from: b.relay.replica,
        to,
        n: nonce(),
        x: Date.now() + 10_000,
        f,
      });
      const before = a.relay.dropped();
      // Unsigned JSON, as frames were before they were sealed.
      await b.redis.publish(aChannel, JSON.stringify(request()));
      // Sealed with a secret that is not the replicas'.
      await b.redis.publish(aChannel, sealedRaw('not-the-secret-0123456789abcdef0123456789', envelope(request())));
      // A real sealed frame, altered after sealing.
      const captured = seen.find((m) => framesIn(m).length > 0) as string;
      expect(captured).toBeDefined();
      // One character of its ciphertext changed.
      const at = captured.indexOf('"e":"') + 20;
      await b.redis.publish(
        aChannel,
        captured.slice(0, at) + (captured[at] === 'A' ? 'B' : 'A') + captured.slice(at + 1),
      );
      // Unsigned, as replicas that read them send each other, but sealed with another secret.
      await b.redis.publish(
        aChannel,
        sealUnchecked(frameKey('not-the-secret-0123456789abcdef0123456789'), envelope(request()), request(), true),
      );
      // A real sealed frame sent again verbatim, on its own channel and on the other's.
      await b.redis.publish(inside(captured).to === a.relay.replica ? aChannel : bChannel, captured);
      await b.redis.publish(inside(captured).to === a.relay.replica ? bChannel : aChannel, captured);
      // A forged response on the waiting replica's channel for the live relay: "deployed".
      const r = liveCall(seen);
      expect(r).toBeDefined();
      const forged = {
        t: 'data',
        r,
        d: Buffer.from(
          'data: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"FORGED: deployed to prod"}]}}\n\n',
        ).toString('base64'),
      };
      await a.redis.publish(bChannel, JSON.stringify(forged));
      await a.redis.publish(
        bChannel,
        sealedRaw('not-the-secret-0123456789abcdef0123456789', envelope(forged, b.relay.replica)),
      );
      await expect
        .poll(() => {
          const now = a.relay.dropped();
          const then = b.relay.dropped();
          return (
            now.signature -
            before.signature +
            then.signature +
            now.envelope -
            before.envelope +
            then.envelope +
            now.replayed +
            then.replayed +
            now.misdirected +
            then.misdirected
          );
        })
        .toBeGreaterThanOrEqual(8);
      release();
      const done = (await call) as { structuredContent?: unknown; content?: { text?: string }[] };
      expect(done.structuredContent).toMatchObject({
        status: 'done',
        deployment: { service: 'order-service', env: 'prod' },
      });
      expect(JSON.stringify(done)).not.toContain('FORGED');
      expect(a.serving.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
      expect(b.serving.store.deployments).toEqual([]);
    } finally {
      spy.disconnect();
    }
  });

  it('malformed frames, even sealed with the right secret, are dropped and counted, never thrown: the replica serves on', async () => {
    const held = await pendingQuestion('bad:');
    const spy = new Redis(h.server.url);
    const seen: string[] = [];
    spy.on('pmessage', (_p: string, _c: string, m: string) => seen.push(m));
    await spy.psubscribe('bad:*');
    const call = held.client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    await held.atSecond;
    const { a, b } = held;
    const bChannel = `bad:replica:${b.relay.replica}`;
    const aChannel = `bad:replica:${a.relay.replica}`;
    // The live relay's id: the request b relayed to a for the call still waiting.
    await expect.poll(() => liveCall(seen)).toBeDefined();
    const r = liveCall(seen) as string;
    const toB = (f: unknown, extra: Record<string, unknown> = {}) =>
      sealedRaw(SECRET, {
        from: a.relay.replica,
        to: b.relay.replica,
        n: nonce(),
        x: Date.now() + 10_000,
        f,
        ...extra,
      });
    const toA = (f: unknown) =>
      sealedRaw(SECRET, { from: b.relay.replica, to: a.relay.replica, n: nonce(), x: Date.now() + 10_000, f });
    const shapes: [string, string][] = [
      [bChannel, toB({ t: 'data', r, d: 1 })],
      [bChannel, toB({ t: 'data', r, d: '!!not base64!!' })],
      [bChannel, toB({ t: 'data', r })],
      [bChannel, toB({ t: 'head', r, status: 200, headers: 'content-type: text/plain' })],
      [bChannel, toB({ t: 'head', r, status: 99, headers: [] })],
      [bChannel, toB({ t: 'head', r, status: 200.5, headers: [] })],
      [bChannel, toB({ t: 'head', r, status: 700, headers: [] })],
      [bChannel, toB({ t: 'head', r, status: 200, headers: [['bad header', 'x']] })],
      [bChannel, toB({ t: 'head', r, status: 200, headers: [['x-evil', 'a\r\nset-cookie: s=1']] })],
      [bChannel, toB({ t: 'head', r, status: 200, headers: [['x', 'y', 'z']] })],
      [bChannel, toB({ t: 'fail', r, message: { nested: true } })],
      [bChannel, toB({ t: 'end', r, extra: 'field' })],
      [bChannel, toB({ t: 'nope', r })],
      [bChannel, toB({ t: 'data', r: 42, d: '' })],
      [bChannel, toB(null)],
      [bChannel, toB([1, 2, 3])],
      [bChannel, toB('a string')],
      [bChannel, toB({ t: 'end', r }, { x: Date.now() - 1 })],
      [bChannel, toB({ t: 'end', r }, { n: 'short' })],
      [bChannel, toB({ t: 'end', r }, { to: 'somebody-else' })],
      [bChannel, signedOnly(SECRET, 'not an envelope')],
      [
        bChannel,
        signedOnly(SECRET, {
          from: a.relay.replica,
          to: b.relay.replica,
          n: nonce(),
          x: Date.now() + 9_000,
          e: 'AAAA',
        }),
      ],
      [bChannel, `${'A'.repeat(43)}.{}`],
      [bChannel, ''],
      [bChannel, 'x'.repeat(100_000)],
      [bChannel, '\u0000\uffff'],
      [
        aChannel,
        toA({
          t: 'request',
          r: crypto.randomUUID(),
          method: 'PUT',
          url: a.serving.url,
          owner: '0'.repeat(64),
          headers: [],
        }),
      ],
      [
        aChannel,
        toA({
          t: 'request',
          r: crypto.randomUUID(),
          method: 'POST',
          url: 'file:///etc/passwd',
          owner: '0'.repeat(64),
          headers: [],
        }),
      ],
      [
        aChannel,
        toA({ t: 'request', r: crypto.randomUUID(), method: 'POST', url: a.serving.url, owner: 'x', headers: [] }),
      ],
      [aChannel, toA({ t: 'abort', r: 5 })],
      // Unsigned, as replicas that read them send each other: bad shapes, bad envelopes, junk.
      ...[{ t: 'data', r, d: 1 }, { t: 'end', r, extra: 'field' }, null].map((f): [string, string] => [
        bChannel,
        sealUnchecked(
          frameKey(SECRET),
          { from: a.relay.replica, to: b.relay.replica, n: nonce(), x: Date.now() + 10_000 },
          f,
          true,
        ),
      ]),
      [bChannel, '{'],
      [
        bChannel,
        JSON.stringify({ from: a.relay.replica, to: b.relay.replica, n: nonce(), x: Date.now() + 9_000, e: 'AAAA' }),
      ],
      [bChannel, `{${'"a":1,'.repeat(10_000)}"b":2}`],
    ];
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const total = () =>
        Object.values(a.relay.dropped())
          .concat(Object.values(b.relay.dropped()))
          .reduce((n, x) => n + x, 0);
      const before = total();
      for (const [channel, message] of shapes) await a.redis.publish(channel, message);
      await expect.poll(total).toBeGreaterThanOrEqual(before + shapes.length);
      expect(shapes.length).toBeGreaterThanOrEqual(20);
      // The call waiting through all of it finishes as the person answered.
      held.release();
      expect(((await call) as { structuredContent?: unknown }).structuredContent).toMatchObject({ status: 'done' });
      expect(a.serving.store.deployments).toHaveLength(1);
      // And the session serves on, relayed.
      expect((await held.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      process.off('uncaughtException', onUncaught);
      spy.disconnect();
    }
    expect(uncaught).toEqual([]);
  });

  it('property: any frame shape, value or size sealed with the right secret leaves both replicas up and serving', async () => {
    const held = await pendingQuestion('prop:');
    const { a, b, client } = held;
    // Caught here so a failing property reports itself, not the call it leaves behind.
    const call = client.callTool({ name: 'deploy', arguments: { service: 'order-service' } }).catch((e: unknown) => e);
    await held.atSecond;
    const channels = [`prop:replica:${a.relay.replica}`, `prop:replica:${b.relay.replica}`];
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    const value = fc.oneof(
      fc.string({ maxLength: 64 }),
      fc.base64String({ maxLength: 64 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.tuple(fc.string({ maxLength: 16 }), fc.string({ maxLength: 16 })), { maxLength: 4 }),
      fc.json({ maxDepth: 2 }),
    );
    const frame = fc.record(
      {
        t: fc.constantFrom('request', 'abort', 'head', 'data', 'end', 'fail', 'other'),
        r: fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })),
        d: value,
        status: fc.oneof(fc.integer({ min: -1, max: 1000 }), value),
        headers: value,
        body: value,
        end: value,
        message: value,
        method: fc.oneof(fc.constantFrom('GET', 'POST', 'DELETE'), fc.string({ maxLength: 8 })),
        url: fc.oneof(fc.constant(a.serving.url), fc.webUrl(), fc.string({ maxLength: 16 })),
        owner: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string({ maxLength: 8 })),
      },
      { requiredKeys: ['t'] },
    );
    try {
      await fc.assert(
        fc.asyncProperty(frame, fc.constantFrom(0, 1), async (f, side) => {
          const to = side === 0 ? a.relay.replica : b.relay.replica;
          const from = side === 0 ? b.relay.replica : a.relay.replica;
          await a.redis.publish(
            channels[side] as string,
            sealedRaw(SECRET, { from, to, n: nonce(), x: Date.now() + 10_000, f }),
          );
        }),
        { numRuns: 300 },
      );
      // Both replicas are up: the waiting call completes and the session answers, relayed.
      held.release();
      expect(((await call) as { structuredContent?: unknown }).structuredContent).toMatchObject({ status: 'done' });
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect(a.serving.store.deployments.filter((d) => d.service !== 'order-service')).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });
});
