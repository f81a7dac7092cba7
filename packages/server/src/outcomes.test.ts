import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools, type Store } from '../test/fixture-tools.js';
import { type Connected, type ConnectOptions, call, connect, type PathName } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit, type ElicitkitOptions } from './kit.js';

const PATHS: PathName[] = [
  'memory-2025-11-25',
  'memory-2025-06-18',
  'http-2026-07-28',
  'stdio-2025-11-25',
  'stdio-2026-07-28',
];

interface Setup {
  c: Connected;
  store: Store;
  events: AuditEvent[];
  /** What has been deployed, read through the server itself (works for the child process too). */
  deployed(): Promise<unknown[]>;
}

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(path: PathName, options: ConnectOptions & { kit?: ElicitkitOptions } = {}): Promise<Setup> {
  const store = createStore();
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e), ...options.kit });
  const c = await connect(
    path,
    () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(store)),
    options,
  );
  open = c;
  return {
    c,
    store,
    events,
    async deployed() {
      const r = await call(c, 'deployments');
      return (r.structured?.deployments as unknown[]) ?? [];
    },
  };
}

describe.each(PATHS)('outcomes over %s', (path) => {
  const stdio = path.startsWith('stdio');
  const modern = path.endsWith('2026-07-28');

  it('accept: a valid answer reaches the handler and the work is done', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: { env: 'staging' } }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('done');
    expect(r.text).toBe('Deployed order-service to staging (#1).');
    expect(await s.deployed()).toEqual([{ service: 'order-service', env: 'staging' }]);
    const request = s.c.seen[0] as {
      requestedSchema: { properties: { env: Record<string, unknown> } };
      message: string;
    };
    expect(request.message).toBe('Which environment should order-service be deployed to?');
    if (path === 'memory-2025-06-18') {
      // Downgraded for the old revision: enum + enumNames instead of titled oneOf, no `mode`.
      expect(request.requestedSchema.properties.env).toMatchObject({
        enum: ['dev', 'staging', 'prod'],
        enumNames: ['Development', 'Staging', 'Production'],
      });
      expect(request).not.toHaveProperty('mode');
    } else {
      expect(request.requestedSchema.properties.env).toHaveProperty('oneOf');
    }
  });

  it('two asks in one call: environment, then the production confirmation', async () => {
    const s = await setup(path, {
      script: [
        { action: 'accept', content: { env: 'prod' } },
        { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } },
      ],
    });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('done');
    expect(s.c.seen).toHaveLength(2);
    expect(await s.deployed()).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
  });

  it('accept invalid: a business check fails, nothing is done, every reason is listed', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: { confirmed: false, ticket: 'REL-9999' } }] });
    const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(r.status).toBe('invalid');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Production deploys need the confirmation ticked.');
    expect(r.text).toContain('Ticket REL-9999 is not an approved release ticket for order-service.');
    expect(await s.deployed()).toEqual([]);
  });

  it('accept with a value outside the form: invalid, nothing done', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: { env: 'qa' } }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('invalid');
    expect(r.structured?.issues).toMatchObject([{ field: 'env', code: 'not_in_options' }]);
    expect(await s.deployed()).toEqual([]);
  });

  it('accept with empty content is invalid, never success', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: {} }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('invalid');
    expect(r.text).toContain('accepted without any values');
    expect(await s.deployed()).toEqual([]);
  });

  it('decline: nothing done, no second question', async () => {
    const s = await setup(path, { script: [{ action: 'decline' }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('declined');
    expect(r.text).toContain('declined to provide Environment');
    expect(s.c.seen).toHaveLength(1);
    expect(await s.deployed()).toEqual([]);
  });

  it('a decline of a two-field form names both fields as a sentence', async () => {
    const s = await setup(path, { script: [{ action: 'decline' }] });
    const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(r.status).toBe('declined');
    expect(r.text).toContain(
      'declined to provide I take responsibility for this production release and Release ticket, so deploy did nothing',
    );
  });

  it('cancel after the first of two asks stops everything', async () => {
    const s = await setup(path, { script: [{ action: 'accept', content: { env: 'prod' } }, { action: 'cancel' }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('cancelled');
    expect(r.text).toContain('cancelled deploy');
    expect(s.c.seen).toHaveLength(2);
    expect(await s.deployed()).toEqual([]);
  });

  it('unsupported: a client without the capability gets the missing arguments, no throw, no hang', async () => {
    const s = await setup(path, { capabilities: {} });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('unsupported');
    expect(r.text).toContain(
      '- env (Environment, required): one of dev (Development), staging (Staging), prod (Production)',
    );
    expect(r.structured?.missing).toEqual([
      { name: 'env', label: 'Environment', required: true, allowed: ['dev', 'staging', 'prod'] },
    ]);
    expect(s.c.seen).toHaveLength(0);
    expect(await s.deployed()).toEqual([]);
  });

  it('timeout: no answer in time gives timeout and nothing is done', async () => {
    if (stdio) {
      const reply: ConnectOptions['script'] = modern
        ? [
            async () =>
              new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: { env: 'dev' } }), 600)),
          ]
        : ['hang'];
      const s = await setup(path, { env: { ELICITKIT_TIMEOUT_MS: '300' }, script: reply });
      const r = await call(s.c, 'deploy', { service: 'order-service' });
      expect(r.status).toBe('timeout');
      expect(await s.deployed()).toEqual([]);
      return;
    }
    let clock = 1_000_000;
    const s = await setup(path, {
      kit: { timeoutMs: modern ? 60_000 : 150, now: () => (modern ? clock : Date.now()) },
      script: [
        modern
          ? () => {
              clock += 61_000; // the person answered after the deadline
              return { action: 'accept', content: { env: 'dev' } };
            }
          : 'hang',
      ],
    });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status).toBe('timeout');
    // The wait as it was, not rounded to a minute (150 ms read "1 minute").
    expect(r.text).toContain(`No answer arrived within ${modern ? '1 minute' : '150 milliseconds'}, so deploy`);
    expect(s.store.deployments).toEqual([]);
  });

  it.skipIf(path === 'memory-2025-06-18')(
    'multi-select with defaults: defaults fill what the person left out',
    async () => {
      const s = await setup(path, { script: [{ action: 'accept', content: { tags: ['y'] } }] });
      const r = await call(s.c, 'tags');
      expect(r.status).toBe('done');
      expect(r.structured?.value).toEqual({ tags: ['y'], note: 'none' });
    },
  );
});

describe('revision-specific behaviour', () => {
  it('a 2025-06-18 client is never sent a multi-select: unsupported, with the reason', async () => {
    const s = await setup('memory-2025-06-18');
    const r = await call(s.c, 'tags');
    expect(r.status).toBe('unsupported');
    expect(r.text).toContain('2025-06-18');
    expect(r.text).toContain('multi-select');
    expect(s.c.seen).toHaveLength(0);
  });

  it('a form-only client cannot be sent to a URL: unsupported', async () => {
    const s = await setup('memory-2025-11-25', { capabilities: { elicitation: { form: {} } } });
    const r = await call(s.c, 'register', { flow: 'f1' });
    expect(r.status).toBe('unsupported');
    expect(r.text).toContain('URL-mode');
  });

  it('a stateless 2025 HTTP request has no capabilities: unsupported, not a hang', async () => {
    const { createMcpHandler } = await import('@modelcontextprotocol/server');
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const kit = createElicitkit();
    const handler = createMcpHandler(() => kit.createServer({ name: 'f', version: '1' }, fixtureTools(createStore())));
    const client = new Client({ name: 'legacy-http', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://x.test/mcp'), {
        fetch: (u, i) => handler.fetch(new Request(u, i)),
      }),
    );
    const result = await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
    expect((result.structuredContent as { status: string }).status).toBe('unsupported');
    await client.close();
  });
  it.each([
    ['an unknown action', { action: 'maybe' }],
    ['content that is not an object', { action: 'accept', content: ['staging'] }],
  ])('a 2025 client answering with %s: unsupported (it could not ask), nothing is done', async (_what, answer) => {
    // A hand-written client on the wire, since the SDK's own client refuses to send such answers.
    const { InMemoryTransport } = await import('@modelcontextprotocol/server');
    const store = createStore();
    const server = createElicitkit().createServer({ name: 'f', version: '1' }, fixtureTools(store));
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    const replies = new Map<number, (m: Record<string, unknown>) => void>();
    theirs.onmessage = (message) => {
      const m = message as Record<string, unknown>;
      if (m.method === 'elicitation/create') {
        void theirs.send({ jsonrpc: '2.0', id: m.id as number, result: answer } as never);
      } else if (typeof m.id === 'number' && replies.has(m.id)) replies.get(m.id)?.(m);
    };
    const rpc = (id: number, method: string, params: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve) => {
        replies.set(id, resolve);
        void theirs.send({ jsonrpc: '2.0', id, method, params } as never);
      });
    await server.connect(ours);
    await theirs.start();
    await rpc(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'raw', version: '1' },
    });
    await theirs.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
    const reply = await rpc(2, 'tools/call', { name: 'deploy', arguments: { service: 'order-service' } });
    const result = reply.result as { structuredContent?: { status?: string } } | undefined;
    const text = (result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text ?? '';
    // Not "the user cancelled": the client broke the protocol, so it could not ask.
    expect(result?.structuredContent?.status).toBe('unsupported');
    expect(text).toContain('Invalid result for elicitation/create');
    expect(store.deployments).toEqual([]);
    await server.close();
  });
});
