/**
 * A tool left out for an input schema nobody can use is said in the page's language, what is wrong
 * included: a Chinese page read `“ok”的工具“t”的输入模式无法使用：inputSchema.properties["a"] is null,
 * not a schema object；已将其略去。` — English from `@elicitkit/client` inside a Chinese sentence. Now
 * every kind of problem `readInputSchema` finds is said in Chinese, the schema's own path (and the
 * text it found, quoted) kept as written; an English page reads what it read before. Real tools
 * route, a real stdio MCP server written on the wire (any shape a sloppy server may send that the
 * SDK lets through).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }]));
let deep: object = { type: 'string' };
for (let i = 0; i < 10; i++) deep = { type: 'array', items: deep };

/** Each broken tool, and what a Chinese page reads after `“s”的工具“name”的输入模式无法使用：`. */
const BROKEN: [name: string, inputSchema: unknown, zh: string, en: string][] = [
  [
    'nullprop',
    { type: 'object', properties: { a: null } },
    'inputSchema.properties["a"] 是 null，不是模式对象',
    'inputSchema.properties["a"] is null, not a schema object',
  ],
  [
    'numprop',
    { type: 'object', properties: { a: 3 } },
    'inputSchema.properties["a"] 是数字 3，不是模式对象',
    'inputSchema.properties["a"] is number 3, not a schema object',
  ],
  [
    'type',
    { type: 'object', properties: { a: { type: { x: 1 } } } },
    'inputSchema.properties["a"].type 是对象，不是类型名或类型名的列表',
    'inputSchema.properties["a"].type is an object, not a type name or a list of them',
  ],
  [
    'enum',
    { type: 'object', properties: { a: { enum: 'prod' } } },
    'inputSchema.properties["a"].enum 是文本 "prod"，不是列表',
    'inputSchema.properties["a"].enum is the text "prod", not a list',
  ],
  [
    'enumobj',
    { type: 'object', properties: { a: { enum: ['x', { y: 1 }] } } },
    'inputSchema.properties["a"].enum[1] 是对象；只能是字符串、数字、布尔值或 null',
    'inputSchema.properties["a"].enum[1] is an object; only strings, numbers, booleans and null',
  ],
  [
    'desc',
    { type: 'object', properties: { a: { description: true } } },
    'inputSchema.properties["a"].description 是布尔值 true，不是文本',
    'inputSchema.properties["a"].description is boolean true, not text',
  ],
  [
    'wide',
    { type: 'object', properties: many(501) },
    'inputSchema.properties 有 501 项；最多读取 500 项',
    'inputSchema.properties has 501 entries; at most 500 are read',
  ],
  [
    'longenum',
    { type: 'object', properties: { a: { enum: Array.from({ length: 1001 }, (_, i) => i) } } },
    'inputSchema.properties["a"].enum 有 1001 个值；最多读取 1000 个',
    'inputSchema.properties["a"].enum has 1001 values; at most 1000 are read',
  ],
  [
    'deep',
    { type: 'object', properties: { a: deep } },
    'inputSchema.properties["a"].items.items.items.items.items.items.items.items.items 嵌套超过 8 层',
    'inputSchema.properties["a"].items.items.items.items.items.items.items.items.items nests deeper than 8 levels',
  ],
];

const data = mkdtempSync(join(tmpdir(), 'elicitkit-schema-notes-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  {
    name: 's',
    command: [
      process.execPath,
      '-e',
      rawServer({
        tools: [
          { name: 'fine', inputSchema: { type: 'object' } },
          ...BROKEN.map(([name, inputSchema]) => ({ name, inputSchema })),
        ],
      }),
    ],
    revision: '2025-11-25',
  },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
const { schemaProblemIn } = await import('../lib/mcp');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

async function notes(locale: 'en' | 'zh'): Promise<string[]> {
  const b = await newBrowser();
  const response = await getTools(
    new Request('http://localhost/api/tools', { headers: { cookie: b.cookie, 'x-elicitkit-locale': locale } }),
  );
  expect(response.status).toBe(200);
  const { tools, unavailable } = (await response.json()) as {
    tools: { name: string }[];
    unavailable: { server: string; message: string }[];
  };
  expect(tools.map((t) => t.name)).toEqual(['fine']);
  return unavailable.map((u) => u.message);
}

describe('a schema nobody can use, said in the page language with what is wrong', () => {
  it('in Chinese: every kind of problem, the schema path and the text found kept', async () => {
    expect(await notes('zh')).toEqual(
      BROKEN.map(([name, , zh]) => `“s”的工具“${name}”的输入模式无法使用：${zh}；已将其略去。`),
    );
  });

  it('no English word is left outside the path and the quoted text', async () => {
    for (const note of await notes('zh')) {
      const words = note
        .replace(/inputSchema[\w.[\]"]*/g, '')
        .replace(/"[^"]*"/g, '')
        .replace(/“[^”]*”/g, '')
        .match(/[A-Za-z]{2,}/g);
      expect(words?.filter((w) => w !== 'null' && w !== 'true') ?? []).toEqual([]);
    }
  });

  it('the problems the SDK lets through nowhere (a schema not an object, required not names) too', () => {
    // The SDK refuses a listing with these: `readInputSchema` still finds them for a caller of its own.
    expect(schemaProblemIn('zh', { path: 'inputSchema', is: 'not-an-object', found: { is: 'text', text: 'x' } })).toBe(
      'inputSchema 是文本 "x"，不是对象',
    );
    expect(schemaProblemIn('zh', { path: 'inputSchema.required', is: 'not-names' })).toBe(
      'inputSchema.required 不是名称列表',
    );
    expect(schemaProblemIn('en', { path: 'inputSchema.required', is: 'not-names' })).toBe(
      'inputSchema.required is not a list of names',
    );
  });

  it('in English as before', async () => {
    expect(await notes('en')).toEqual(
      BROKEN.map(
        ([name, , , en]) =>
          `The tool "${name}" of server "s" has an input schema elicitkit cannot use: ${en}; it is left out.`,
      ),
    );
  });
});
