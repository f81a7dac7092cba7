/**
 * What chats share (`lib/shared-tools.ts`) is shared by content only. Two chats whose server sent
 * them different tools (here a server that declares a tool of its own to each MCP session) each
 * list, call and have their results checked against their own tools only; the tool lists and the
 * compiled output schemas are held once for equal content and apart otherwise; a `$id` shared by
 * two different schemas does not make one stand for the other. Real SDK server over loopback HTTP,
 * driven through the route handlers. (Chats of different users of the bundled opsdesk, each
 * seeing only its own questions while sharing one tool list: `shared-opsdesk.test.ts`.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpHandler } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { ProtocolError, type Tool } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';

/** Each 2025 session gets a server with one tool named after it, whose result only its own schema accepts. */
let sessions = 0;
const http = createHttpHandler(() => {
  const n = ++sessions;
  const server = new McpServer({ name: 'per-session', version: '1' }, { capabilities: { tools: {} } });
  server.registerTool(
    `only_${n}`,
    {
      description: `Session ${n}'s own tool.`,
      inputSchema: z.object({}),
      outputSchema: z.object({ [`k${n}`]: z.literal(n) }).strict(),
    },
    async () => ({ content: [{ type: 'text', text: `ran ${n}` }], structuredContent: { [`k${n}`]: n } }),
  );
  server.registerTool(
    'shared',
    {
      description: 'The same in every session.',
      inputSchema: z.object({}),
      outputSchema: z.object({ ok: z.boolean() }),
    },
    async () => ({ content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } }),
  );
  return server;
});
const listener = createServer(toNodeListener(http));
await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-shared-tools-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'per', url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`, revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { chatOf, resetState } = await import('../lib/state');
const { callListed } = await import('../lib/mcp');
const { internTools, SharedSchemaValidator } = await import('../lib/shared-tools');
afterAll(async () => {
  await resetState();
  await http.close();
  await new Promise((resolve) => listener.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

type Browser = Awaited<ReturnType<typeof newBrowser>>;

async function toolNames(b: Browser): Promise<string[]> {
  const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
  const listing = (await response.json()) as { tools: { name: string }[] };
  return listing.tools.map((t) => t.name).sort();
}

async function heldTools(b: Browser) {
  const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
  return (await chat?.connections.get('per'))?.tools;
}

/** A tool call's output in a `/tool` turn, or its error text. */
async function run(b: Browser, line: string) {
  const chunks = await turn(b, line);
  const output = chunks.find((c) => c.type === 'tool-output-available')?.output as
    | { text: string; isError: boolean; structured?: unknown }
    | undefined;
  const error = chunks.find((c) => c.type === 'tool-output-error')?.errorText;
  const said = chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta);
  return { output, error, said: said.join('') };
}

describe('tools sent to one chat stay that chat’s', () => {
  it('lists, calls and checks each chat against the tools its own session declared', async () => {
    const a = await newBrowser();
    const b = await newBrowser();
    const aNames = await toolNames(a);
    const bNames = await toolNames(b);
    expect(aNames).toHaveLength(2);
    expect(bNames).toHaveLength(2);
    const [aOwn] = aNames.filter((n) => n.startsWith('only_'));
    const [bOwn] = bNames.filter((n) => n.startsWith('only_'));
    expect(aOwn).not.toBe(bOwn);
    expect(bNames).not.toContain(aOwn);

    // Each chat's result passes its own output schema (another session's would refuse it).
    const n = Number(aOwn?.slice('only_'.length));
    expect((await run(a, `/${aOwn}`)).output).toMatchObject({ isError: false, structured: { [`k${n}`]: n } });
    expect((await run(b, `/${bOwn}`)).output).toMatchObject({ isError: false });
    // Another chat's tool is not this chat's to call.
    expect((await run(a, `/${bOwn}`)).said).toContain(`There is no tool "${bOwn}"`);

    const aHeld = await heldTools(a);
    const bHeld = await heldTools(b);
    expect(aHeld?.map((t) => t.name).sort()).toEqual(aNames);
    expect(bHeld?.map((t) => t.name).sort()).toEqual(bNames);
    expect(aHeld).not.toBe(bHeld);
    expect(Object.isFrozen(aHeld) && Object.isFrozen(aHeld?.[0]?.inputSchema)).toBe(true);
  });

  it('checks a result against the definition its own connection listed: a result that does not fit fails', async () => {
    const a = await newBrowser();
    await toolNames(a);
    const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: a.cookie } }));
    const c = await chat?.connections.get('per');
    if (!c?.tools) throw new Error('no listing');
    const own = c.tools.find((t) => t.name.startsWith('only_')) as Tool;
    // The same tool as another session declares it: its schema wants another key.
    const other = { ...own, outputSchema: { type: 'object', properties: { k0: { const: 0 } }, required: ['k0'] } };
    const elsewhere = { client: c.client, tools: internTools([other as Tool]) };
    await expect(callListed(elsewhere, { name: own.name, arguments: {} }, {})).rejects.toThrow(/output schema/);
    const n = Number(own.name.slice('only_'.length));
    await expect(callListed(c, { name: own.name, arguments: {} }, {})).resolves.toMatchObject({
      structuredContent: { [`k${n}`]: n },
    });
  });
});

describe('internTools', () => {
  const tool = (name: string, extra: Record<string, unknown> = {}): Tool =>
    ({ name, inputSchema: { type: 'object', properties: { x: { type: 'string' } } }, ...extra }) as Tool;

  it('holds one frozen list for equal content and separate lists otherwise', () => {
    const one = internTools([tool('a'), tool('b')]);
    expect(internTools([tool('a'), tool('b')])).toBe(one);
    expect(internTools([tool('b'), tool('a')])).not.toBe(one);
    expect(internTools([tool('a'), tool('b', { description: 'other' })])).not.toBe(one);
    expect(Object.isFrozen(one)).toBe(true);
    const properties = (one[0] as Tool).inputSchema.properties as Record<string, unknown>;
    expect(() => {
      properties.y = {};
    }).toThrow(TypeError);
  });
});

describe('the shared schema validator', () => {
  const schema = (max: number) => ({ type: 'object' as const, properties: { n: { type: 'number', maximum: max } } });

  it('compiles each distinct schema once, whichever copy of it is asked for', () => {
    const v = new SharedSchemaValidator();
    const first = v.getValidator(schema(5));
    expect(v.getValidator(schema(5))).toBe(first);
    const other = v.getValidator(schema(6));
    expect(v.compiled).toBe(2);
    expect(first({ n: 6 }).valid).toBe(false);
    expect(other({ n: 6 }).valid).toBe(true);
  });

  it('does not let a schema stand for another one that declares the same $id', () => {
    const v = new SharedSchemaValidator();
    const a = v.getValidator({ $id: 'https://example.com/result.json', ...schema(1) });
    const b = v.getValidator({ $id: 'https://example.com/result.json', ...schema(100) });
    expect(a({ n: 50 }).valid).toBe(false);
    expect(b({ n: 50 }).valid).toBe(true);
  });

  it('starts a fresh engine after many distinct schemas, and what it handed out keeps working', () => {
    const v = new SharedSchemaValidator();
    const early = v.getValidator(schema(0));
    for (let i = 1; i <= 300; i++) v.getValidator(schema(i));
    expect(early({ n: 1 }).valid).toBe(false);
    expect(early({ n: 0 }).valid).toBe(true);
    // Found again after the restart: compiled anew, the same verdicts.
    expect(v.getValidator(schema(0))({ n: 1 }).valid).toBe(false);
  });
});

describe('callListed', () => {
  it('lists again and sends once more when the server says its headers did not match (SEP-2243)', async () => {
    const old = internTools([{ name: 't', inputSchema: { type: 'object' }, description: 'old' } as Tool]);
    const fresh = [{ name: 't', inputSchema: { type: 'object' }, description: 'new' } as Tool];
    const sent: unknown[] = [];
    const client = {
      getProtocolEra: () => 'modern',
      listTools: async () => ({ tools: fresh }),
      callTool: async (_params: unknown, options: { toolDefinition?: Tool }) => {
        sent.push(options.toolDefinition?.description);
        if (options.toolDefinition?.description === 'old') throw new ProtocolError(-32020, 'header mismatch');
        return { content: [] };
      },
    };
    const c = { client: client as never, tools: old };
    await expect(callListed(c, { name: 't', arguments: {} }, {})).resolves.toEqual({ content: [] });
    expect(sent).toEqual(['old', 'new']);
    expect(c.tools.map((t) => t.description)).toEqual(['new']);
  });

  it('does not send again for any other error', async () => {
    let calls = 0;
    const client = {
      getProtocolEra: () => 'modern',
      listTools: async () => ({ tools: [] }),
      callTool: async () => {
        calls++;
        throw new ProtocolError(-32602, 'invalid params');
      },
    };
    const c = { client: client as never, tools: internTools([{ name: 't', inputSchema: { type: 'object' } } as Tool]) };
    await expect(callListed(c, { name: 't', arguments: {} }, {})).rejects.toThrow('invalid params');
    expect(calls).toBe(1);
  });
});
