/**
 * What `ask()` no longer redoes on every call (issue 12), and why none of it can hand one call
 * another's answer: each tool's settings per tool, each 2025 connection's peer per connection, and
 * a form's shape for a known client per form. Each cache is checked against the work it saves, and against the thing it is keyed by
 * changing.
 */
import { type AnyForm, type FormSchema, field, form } from '@elicitkit/form';
import { knownClient, knownClientOf } from '@elicitkit/form/clients';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  McpServer,
  PROTOCOL_VERSION_META_KEY,
  type ServerContext,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { type Connected, call, connect } from '../test/harness.js';
import { parseArguments } from './arguments.js';
import { shapeForClient } from './client-quirks.js';
import { ElicitkitUsageError } from './errors.js';
import { createElicitkit } from './kit.js';
import { peerOf } from './peer.js';
import { done } from './results.js';
import { type AnyTool, defineTool } from './tool.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** A tool that asks whichever form it declares under `q`, and reports the answer. */
function echoTool(forms: Record<string, AnyForm>) {
  return defineTool({
    name: 'echo',
    description: 'Asks q and says what came back.',
    inputSchema: z.object({}),
    forms,
    async run(_args, ctx) {
      const a = await ctx.ask('q', { message: 'Please answer the question below.' });
      if (a.action !== 'accept') return a.result();
      return done(JSON.stringify(a.value));
    },
  });
}

describe('a tool’s settings, kept per tool', () => {
  it('follow the tool when its forms are replaced after the server was built', async () => {
    const first = form({ env: field.string({ title: 'Environment' }) });
    const second = form({ ticket: field.string({ title: 'Ticket' }) });
    const tool = echoTool({ q: first });
    const kit = createElicitkit();
    open = await connect('memory-2025-11-25', () => kit.createServer({ name: 't', version: '1' }, [tool]), {
      script: [
        { action: 'accept', content: { env: 'dev' } },
        { action: 'accept', content: { ticket: 'REL-1' } },
      ],
    });
    expect((await call(open, 'echo')).text).toBe('{"env":"dev"}');
    tool.forms = { q: second };
    expect((await call(open, 'echo')).text).toBe('{"ticket":"REL-1"}');
    expect(open.seen.map((p) => Object.keys((p.requestedSchema as FormSchema).properties))).toEqual([
      ['env'],
      ['ticket'],
    ]);
  });

  it('find only the forms a tool declares, never Object.prototype’s', async () => {
    const tool = defineTool({
      name: 'proto',
      description: 'Asks a key no form is declared under.',
      inputSchema: z.object({}),
      forms: { q: form({ env: field.string({ title: 'Environment' }) }) },
      async run(_args, ctx) {
        try {
          await ctx.ask('toString' as 'q', { message: 'Please answer the question below.' });
          return done('asked');
        } catch (error) {
          return done(error instanceof ElicitkitUsageError ? error.code : String(error));
        }
      },
    });
    const kit = createElicitkit();
    open = await connect('memory-2025-11-25', () => kit.createServer({ name: 't', version: '1' }, [tool]));
    expect((await call(open, 'proto')).text).toBe('UNKNOWN_FORM');
    expect(open.seen).toEqual([]);
  });
});

describe('a tool’s listing, built once per tool', () => {
  it('is the same object for every server, and follows the tool when its description or schema change', async () => {
    const tool = defineTool({
      name: 'listed',
      description: 'First description.',
      inputSchema: z.object({ service: z.string() }),
      run: () => done('ok'),
    });
    const kit = createElicitkit();
    const factory = () => kit.createServer({ name: 't', version: '1' }, [tool]);
    const listed = async () => {
      const c = await connect('memory-2025-11-25', factory);
      try {
        return (await c.client.listTools()).tools[0];
      } finally {
        await c.close();
      }
    };
    const registered = (server: ReturnType<typeof factory>) =>
      (server as unknown as { _registeredTools: Record<string, { inputSchema: unknown }> })._registeredTools.listed
        ?.inputSchema;
    expect(registered(factory())).toBe(registered(factory()));
    expect(await listed()).toMatchObject({
      description: 'First description.',
      inputSchema: { properties: { service: { type: 'string' } } },
    });
    tool.description = 'Second description.';
    (tool as AnyTool).inputSchema = z.object({ ticket: z.string() });
    expect(await listed()).toMatchObject({
      description: 'Second description.',
      inputSchema: { properties: { ticket: { type: 'string' } } },
    });
  });
});

/** 'yes' when a call could change what the client can be asked (it must not: frozen), else 'no'. */
function triesToChange(can: { url: boolean }): 'yes' | 'no' {
  try {
    (can as { url: boolean }).url = !can.url;
    return 'yes';
  } catch {
    // Frozen: one call cannot change what the next is told.
    return 'no';
  }
}

describe('a 2025 connection’s peer, read once per connection', () => {
  const canTool = () =>
    defineTool({
      name: 'can',
      description: 'Says what the client can be asked, and whether that can be changed.',
      inputSchema: z.object({}),
      async run(_args, ctx) {
        const changed = triesToChange(ctx.can);
        return done(`form=${ctx.can.form} url=${ctx.can.url} changed=${changed}`);
      },
    });

  it('is each connection’s own, and no call can change it for the next', async () => {
    const kit = createElicitkit();
    const factory = () => kit.createServer({ name: 't', version: '1' }, [canTool()]);
    const formOnly = await connect('memory-2025-11-25', factory, { capabilities: { elicitation: { form: {} } } });
    const both = await connect('memory-2025-11-25', factory);
    try {
      for (let i = 0; i < 2; i++) {
        expect((await call(formOnly, 'can')).text).toBe('form=true url=false changed=no');
        expect((await call(both, 'can')).text).toBe('form=true url=true changed=no');
      }
    } finally {
      await formOnly.close();
      await both.close();
    }
  });
});

describe('a 2026-07-28 client’s peer, read once per version, client and modes', () => {
  it('is each envelope’s own: other modes, another client name, and no call can change it for the next', async () => {
    const tool = defineTool({
      name: 'who',
      description: 'Says what the client can be asked and which known client it is.',
      inputSchema: z.object({}),
      async run(_args, ctx) {
        const changed = triesToChange(ctx.can);
        const form = ctx.can.form && ctx.can.url ? 'both' : ctx.can.form ? 'form' : 'none';
        return done(`${form} changed=${changed}`);
      },
    });
    const kit = createElicitkit();
    const factory = () => kit.createServer({ name: 't', version: '1' }, [tool]);
    const formOnly = await connect('http-2026-07-28', factory, {
      capabilities: { elicitation: { form: {} } },
      clientName: 'one',
    });
    const both = await connect('http-2026-07-28', factory, { clientName: 'one' });
    const other = await connect('http-2026-07-28', factory, {
      capabilities: { elicitation: { form: {} } },
      clientName: 'one\u0000x',
    });
    try {
      for (let i = 0; i < 2; i++) {
        expect((await call(formOnly, 'who')).text).toBe('form changed=no');
        expect((await call(both, 'who')).text).toBe('both changed=no');
        expect((await call(other, 'who')).text).toBe('form changed=no');
      }
    } finally {
      await formOnly.close();
      await both.close();
      await other.close();
    }
  });
});

describe('a form’s shape for a known client, worked out once per form', () => {
  const trae = knownClient('trae');
  const cline = knownClient('cline');

  it('is one frozen result per form, client and language, never another form’s', () => {
    const sure = form({ sure: field.boolean({ title: 'Sure', default: false }) });
    const ok = form({ ok: field.boolean({ title: 'OK' }) });
    const first = shapeForClient(sure, trae, 'en', true);
    expect(shapeForClient(sure, trae, 'en', true)).toBe(first);
    if (!first.ok) throw new Error('expected a shape');
    expect(Object.isFrozen(first.schema)).toBe(true);
    expect(first.adaptation).toEqual({ quirk: 'booleanAsChoice', fields: ['sure'] });
    expect(first.schema.properties.sure).toMatchObject({ default: 'no' });
    const other = shapeForClient(ok, trae, 'en', true);
    if (!other.ok) throw new Error('expected a shape');
    expect(Object.keys(other.schema.properties)).toEqual(['ok']);
    const zh = shapeForClient(sure, trae, 'zh', true);
    if (!zh.ok) throw new Error('expected a shape');
    expect(zh).not.toBe(first);
    expect(JSON.stringify(zh.schema)).not.toBe(JSON.stringify(first.schema));
    // Another client's quirks: its own entry.
    expect(shapeForClient(sure, cline, 'en', true)).not.toBe(first);
    // Opting out or an unknown client sends the form as it is.
    expect(shapeForClient(sure, trae, 'en', false)).toEqual({ ok: true, schema: sure.schema });
    expect(shapeForClient(sure, undefined, 'en', true)).toEqual({ ok: true, schema: sure.schema });
  });

  it('is worked out again for a hand-made form whose schema can still change', () => {
    const schema: FormSchema = { type: 'object', properties: { sure: { type: 'boolean', title: 'Sure' } } };
    const handMade = { ...form({ x: field.string({ title: 'X' }) }), schema } as AnyForm;
    const before = shapeForClient(handMade, trae, 'en', true);
    expect(before.ok && before.adaptation?.fields).toEqual(['sure']);
    schema.properties = { note: { type: 'string', title: 'Note' } };
    const after = shapeForClient(handMade, trae, 'en', true);
    expect(after).toEqual({ ok: true, schema });
  });
});

describe('arguments, checked without a promise when the schema answers at once', () => {
  const schemaOf = (validate: (value: unknown) => unknown) =>
    ({
      '~standard': {
        version: 1,
        vendor: 'test',
        validate,
        jsonSchema: { input: () => ({}), output: () => ({}) },
      },
    }) as unknown as StandardSchemaWithJSON;

  it('answers a synchronous schema synchronously, and reads a library’s own thenable as a promise', async () => {
    const sync = parseArguments(z.object({ n: z.number() }), { n: 1 });
    expect(sync).toEqual({ ok: true, value: { n: 1 } });
    // Not a native Promise: a thenable must be awaited, never read as a result with no issues.
    const thenable = (result: unknown) => {
      // A hand-made PromiseLike, as a library with its own promise type returns.
      const promiseLike = {};
      Object.defineProperty(promiseLike, 'then', { value: (resolve: (r: unknown) => void) => resolve(result) });
      return promiseLike;
    };
    const refused = parseArguments(
      schemaOf(() => thenable({ issues: [{ message: 'refused later', path: ['n'] }] })),
      { n: 1 },
    );
    expect(refused).toBeInstanceOf(Promise);
    expect(await refused).toEqual({
      ok: false,
      issues: [{ path: ['n'], code: 'custom', message: 'n: refused later' }],
    });
    expect(
      await parseArguments(
        schemaOf(() => thenable({ value: { n: 2 } })),
        {},
      ),
    ).toEqual({
      ok: true,
      value: { n: 2 },
    });
  });
});

describe('a 2026-07-28 client’s peer, the previous request’s compared first', () => {
  const ctxOf = (version: string, name: string | undefined, elicitation: object) =>
    ({
      mcpReq: {
        envelope: {
          [PROTOCOL_VERSION_META_KEY]: version,
          ...(name === undefined ? {} : { [CLIENT_INFO_META_KEY]: { name, version: '1' } }),
          [CLIENT_CAPABILITIES_META_KEY]: { elicitation },
        },
      },
    }) as unknown as ServerContext;
  const server = new McpServer({ name: 't', version: '1' }).server;

  it('is another peer as soon as the version, the client name or a mode differs, and the same one again after', () => {
    const seen = [
      peerOf(ctxOf('2026-07-28', 'claude-code', { form: {} }), server),
      peerOf(ctxOf('2026-07-28', 'cursor', { form: {} }), server),
      peerOf(ctxOf('2026-07-28', undefined, { form: {} }), server),
      peerOf(ctxOf('2026-07-28', 'cursor', { form: {}, url: {} }), server),
      peerOf(ctxOf('2026-07-28', 'cursor', { url: {} }), server),
      peerOf(ctxOf('2026-07-29', 'cursor', { url: {} }), server),
    ];
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.map((p) => [p.protocolVersion, p.client?.id, p.can.form, p.can.url])).toEqual([
      ['2026-07-28', knownClientOf({ name: 'claude-code' })?.id, true, false],
      ['2026-07-28', knownClientOf({ name: 'cursor' })?.id, true, false],
      ['2026-07-28', undefined, true, false],
      ['2026-07-28', knownClientOf({ name: 'cursor' })?.id, true, true],
      ['2026-07-28', knownClientOf({ name: 'cursor' })?.id, false, true],
      ['2026-07-29', knownClientOf({ name: 'cursor' })?.id, false, true],
    ]);
    expect(seen[0]?.client?.id).not.toBe(seen[1]?.client?.id);
    // The same client again, right after itself and after others: its own peer.
    expect(peerOf(ctxOf('2026-07-28', 'cursor', { form: {} }), server)).toBe(seen[1]);
    expect(peerOf(ctxOf('2026-07-28', 'cursor', { form: {} }), server)).toBe(seen[1]);
    expect(peerOf(ctxOf('2026-07-28', 'claude-code', { form: {} }), server)).toBe(seen[0]);
  });
});
