/**
 * Known clients' quirks on every path: a client announcing itself as Trae is asked a boolean as a
 * Yes/No choice (in its revision's shape) and the tool gets a boolean; a text-only Cline gets one
 * line of text or `unsupported`; the audit records the adaptation; a form can opt out; and on
 * 2026-07-28 the sealed state, not the retrying client's name, decides how an answer is read.
 */
import { field, form } from '@elicitkit/form';
import { Client, isInputRequiredResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createStore, fixtureTools, type Store } from '../test/fixture-tools.js';
import { type Connected, type ConnectOptions, call, connect, type PathName } from '../test/harness.js';
import type { AuditEvent, AuditRequest } from './audit.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const PATHS: PathName[] = [
  'memory-2025-06-18',
  'memory-2025-11-25',
  'http-2026-07-28',
  'stdio-2025-11-25',
  'stdio-2026-07-28',
];

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** A tool that asks a confirmation with the client adaptation switched off for that one form. */
const declared = form({ sure: field.boolean({ title: 'I am sure', default: false }) });
function optOutTool() {
  return defineTool({
    name: 'declared_shape',
    description: 'Asks a boolean exactly as declared, whatever the client.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ sure: z.boolean() }),
    forms: { sure: declared },
    async run(_args, ctx) {
      const a = await ctx.ask('sure', { message: 'Are you sure about the demo change?', adaptToClient: false });
      if (a.action !== 'accept') return a.result();
      return done(`sure: ${a.value.sure}`, { sure: a.value.sure });
    },
  });
}

async function setup(path: PathName, options: ConnectOptions) {
  const store: Store = createStore();
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e) });
  const c = await connect(
    path,
    () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [...fixtureTools(store), optOutTool()]),
    options,
  );
  open = c;
  const deployed = async () => (await call(c, 'deployments')).structured?.deployments as unknown[];
  return { c, store, events, deployed };
}

const requests = (events: AuditEvent[]) => events.filter((e): e is AuditRequest => e.type === 'request');

type Params = { requestedSchema: { properties: Record<string, Record<string, unknown>> } };

describe.each(PATHS)('a client announcing itself as Trae, over %s', (path) => {
  const inProcess = !path.startsWith('stdio');

  it('the production confirmation arrives as a titled Yes/No choice; "Yes" reaches the tool as true and it deploys', async () => {
    const s = await setup(path, {
      clientName: 'Trae',
      script: [
        (params) => {
          const confirmed = (params as Params).requestedSchema.properties.confirmed;
          // The choice in the negotiated revision's shape.
          expect(confirmed).toEqual(
            path === 'memory-2025-06-18'
              ? {
                  type: 'string',
                  title: 'I take responsibility for this production release',
                  enum: ['yes', 'no'],
                  enumNames: ['Yes', 'No'],
                }
              : {
                  type: 'string',
                  title: 'I take responsibility for this production release',
                  oneOf: [
                    { const: 'yes', title: 'Yes' },
                    { const: 'no', title: 'No' },
                  ],
                  default: 'no',
                },
          );
          return { action: 'accept', content: { confirmed: 'yes', ticket: 'REL-1001' } };
        },
      ],
    });
    const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('done');
    expect(await s.deployed()).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
    if (inProcess) {
      expect(s.store.deployments).toEqual([{ service: 'order-service', env: 'prod', ticket: 'REL-1001' }]);
      expect(requests(s.events)[0]).toMatchObject({
        client: 'trae',
        adaptation: { quirk: 'booleanAsChoice', fields: ['confirmed'] },
        delivered: true,
      });
      // The response record holds the value the tool got, not the client's word for it.
      expect(s.events.find((e) => e.type === 'response')).toMatchObject({ content: { confirmed: true } });
    }
  });

  it('"No" reaches the tool as false: its check refuses, nothing deploys', async () => {
    const s = await setup(path, {
      clientName: 'Trae',
      script: [{ action: 'accept', content: { confirmed: 'no', ticket: 'REL-1001' } }],
    });
    const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('invalid');
    expect(r.text).toMatch(/need the confirmation ticked/);
    expect(await s.deployed()).toEqual([]);
  });

  it.each([[true], ['Yes'], ['true'], [1]])(
    'an answer outside the choice (%j) is not guessed: invalid, nothing deploys',
    async (value) => {
      const s = await setup(path, {
        clientName: 'Trae',
        script: [{ action: 'accept', content: { confirmed: value, ticket: 'REL-1001' } }],
      });
      const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
      expect(r.status, r.text).toBe('invalid');
      expect(r.text).toMatch(/"yes" or "no"/);
      expect(await s.deployed()).toEqual([]);
    },
  );

  it.runIf(inProcess)('a form that opts out is sent as declared: a boolean, answered as one', async () => {
    const s = await setup(path, {
      clientName: 'Trae',
      script: [
        (params) => {
          expect((params as Params).requestedSchema.properties.sure).toMatchObject({ type: 'boolean' });
          return { action: 'accept', content: { sure: true } };
        },
      ],
    });
    const r = await call(s.c, 'declared_shape');
    expect(r.status, r.text).toBe('done');
    expect(r.structured?.sure).toBe(true);
    expect(requests(s.events)[0]).toMatchObject({ client: 'trae' });
    expect(requests(s.events)[0]).not.toHaveProperty('adaptation');
  });
});

describe.each(PATHS)('a text-only client (Cline), over %s', (path) => {
  const inProcess = !path.startsWith('stdio');

  it('a form of one choice becomes one line of text; the typed title reaches the tool as the value', async () => {
    const s = await setup(path, {
      clientName: 'Cline',
      script: [
        (params) => {
          expect((params as Params).requestedSchema.properties.env).toEqual({
            type: 'string',
            title: 'Environment',
            description:
              'Production asks for a release ticket next. Type one of: dev (Development), staging (Staging), prod (Production).',
          });
          return { action: 'accept', content: { env: 'staging' } };
        },
      ],
    });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status, r.text).toBe('done');
    expect(await s.deployed()).toEqual([{ service: 'order-service', env: 'staging' }]);
    if (inProcess) expect(requests(s.events)[0]?.adaptation).toEqual({ quirk: 'textOnly', fields: ['env'] });
  });

  it('a typed line that is none of the options is invalid, nothing deploys', async () => {
    const s = await setup(path, { clientName: 'Cline', script: [{ action: 'accept', content: { env: 'qa' } }] });
    const r = await call(s.c, 'deploy', { service: 'order-service' });
    expect(r.status, r.text).toBe('invalid');
    expect(await s.deployed()).toEqual([]);
  });

  it('the two-field production confirmation cannot be one line: unsupported with the missing arguments, nothing asked', async () => {
    const s = await setup(path, { clientName: 'Cline' });
    const r = await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(r.status, r.text).toBe('unsupported');
    expect(r.text).toMatch(/one line of text/);
    expect(((r.structured?.missing ?? []) as { name: string }[]).map((m) => m.name)).toEqual(['confirmed', 'ticket']);
    expect(s.c.seen).toEqual([]);
    expect(await s.deployed()).toEqual([]);
    if (inProcess) expect(requests(s.events)[0]).toMatchObject({ client: 'cline', delivered: false });
  });
});

describe('a client the table does not know', () => {
  it('is asked the form as declared', async () => {
    const s = await setup('memory-2025-11-25', {
      clientName: 'extraterrestrial', // not Trae: names match from the start
      script: [
        (params) => {
          expect((params as Params).requestedSchema.properties.confirmed).toMatchObject({ type: 'boolean' });
          return { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } };
        },
      ],
    });
    expect((await call(s.c, 'deploy', { service: 'order-service', env: 'prod' })).status).toBe('done');
    expect(requests(s.events)[0]).not.toHaveProperty('client');
  });
});

describe('2026-07-28: the sealed state decides how an answer is read', () => {
  async function manual(name: string, handler: ReturnType<typeof createMcpHandler>) {
    const client = new Client(
      { name, version: '1' },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) =>
          handler.fetch(new Request(url, init), { authInfo: { token: 'alice', clientId: 'alice', scopes: [] } }),
      }),
    );
    return (extra: Record<string, unknown> = {}) =>
      client.request(
        {
          method: 'tools/call',
          params: { name: 'deploy', arguments: { service: 'order-service', env: 'prod' }, ...extra },
        },
        { allowInputRequired: true },
      );
  }
  function server() {
    const store = createStore();
    const kit = createElicitkit({ identify: (ctx) => ctx.http?.authInfo?.clientId });
    return {
      store,
      handler: createMcpHandler(() => kit.createServer({ name: 'f', version: '1' }, fixtureTools(store))),
    };
  }

  it('asked as Trae, answered "yes" in a retry that no longer says Trae: read by the sealed Yes/No, deploys', async () => {
    const { store, handler } = server();
    const first = await (await manual('Trae', handler))();
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    const asked = first.inputRequests?.prod as { params: Params };
    expect(asked.params.requestedSchema.properties.confirmed).toHaveProperty('oneOf');
    const second = await (await manual('someone-else', handler))({
      inputResponses: { prod: { action: 'accept', content: { confirmed: 'yes', ticket: 'REL-1001' } } },
      requestState: first.requestState,
    });
    expect((second as { structuredContent?: { status?: string } }).structuredContent?.status).toBe('done');
    expect(store.deployments).toHaveLength(1);
  });

  it('asked as a boolean, answered "yes" in a retry that says Trae: the sealed shape wins, invalid, nothing deploys', async () => {
    const { store, handler } = server();
    const first = await (await manual('plain-client', handler))();
    if (!isInputRequiredResult(first)) throw new Error('expected the confirmation');
    const asked = first.inputRequests?.prod as { params: Params };
    expect(asked.params.requestedSchema.properties.confirmed).toMatchObject({ type: 'boolean' });
    const second = await (await manual('Trae', handler))({
      inputResponses: { prod: { action: 'accept', content: { confirmed: 'yes', ticket: 'REL-1001' } } },
      requestState: first.requestState,
    });
    expect((second as { structuredContent?: { status?: string } }).structuredContent?.status).toBe('invalid');
    expect(store.deployments).toHaveLength(0);
  });
});
