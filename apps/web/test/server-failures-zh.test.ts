/**
 * What the chat streams of a server it could not reach is in the chat's language: a command that
 * could not be started, a port where nothing listens, the tools panel's list of servers missing,
 * and a chat that has ended. A Chinese page was told all of it in English (where the server is
 * and why), inside a Chinese sentence around it. Real chat and tools routes; a real stdio MCP
 * server beside a command that does not exist and a closed loopback port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

/** A loopback port nothing listens on (taken, then let go). */
const port = await new Promise<number>((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => {
    const { port: p } = s.address() as { port: number };
    s.close(() => resolve(p));
  });
});

const data = mkdtempSync(join(tmpdir(), 'elicitkit-failures-zh-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'gone', command: [join(data, 'no-such-program')], revision: '2025-11-25' },
  { name: 'down', url: `http://127.0.0.1:${port}/mcp`, revision: '2025-11-25' },
  {
    name: 'ok',
    command: [
      process.execPath,
      '-e',
      rawServer({
        tools: [
          { name: 'hello', inputSchema: { type: 'object' } },
          // A property that is not a schema: left out, and said.
          { name: 'broken', inputSchema: { type: 'object', properties: { a: null } } },
        ],
      }),
    ],
    revision: '2025-11-25',
  },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, textOf, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { chatOf, closeChat, resetState } = await import('../lib/state');
const { listTools } = await import('../lib/mcp');

afterAll(async () => {
  await resetState();
  rmSync(data, { recursive: true, force: true });
});

const HAN = /\p{Script=Han}/u;
/** English words of the old messages: none may be left in a Chinese chat's. */
const ENGLISH =
  /cannot be reached|could not be started|connection refused|no such program|Check its|Try again|command:/;

type Browser = Awaited<ReturnType<typeof newBrowser>>;

/** A turn on a Chinese page, to its end: what it said, a line per text part. */
async function zhTurn(b: Browser, text: string): Promise<string> {
  return textOf(await turn(b, text, { 'x-elicitkit-locale': 'zh' }), '\n');
}

describe('servers the chat cannot reach, on a Chinese page', () => {
  it('a command naming a missing server: where it is and why, in Chinese', async () => {
    const b = await newBrowser();
    const said = await zhTurn(b, '/gone__x');
    expect(said).toContain('MCP 服务器 "gone"');
    expect(said).toContain('无法启动');
    expect(said).toContain('没有这个程序（ENOENT）');
    expect(said).not.toMatch(ENGLISH);
    const down = await zhTurn(b, '/down__x');
    expect(down).toContain('无法连接');
    expect(down).toContain('连接被拒绝');
    expect(down).toContain(`http://127.0.0.1:${port}/mcp`);
    expect(down).not.toMatch(ENGLISH);
  });

  it('a command naming no tool lists the servers missing, in Chinese', async () => {
    const b = await newBrowser();
    const said = await zhTurn(b, '/nope');
    expect(said).toContain('没有名为“nope”的工具');
    expect(said).toContain('无法启动');
    expect(said).toContain('无法连接');
    expect(said).not.toMatch(ENGLISH);
  });

  it("the tools panel's servers missing, in Chinese", async () => {
    const b = await newBrowser();
    const response = await getTools(
      new Request('http://localhost/api/tools', { headers: { cookie: b.cookie, 'x-elicitkit-locale': 'zh' } }),
    );
    expect(response.status).toBe(200);
    const { tools, unavailable } = (await response.json()) as {
      tools: { name: string }[];
      unavailable: { server: string; message: string }[];
    };
    expect(tools.map((t) => t.name)).toEqual(['ok__hello']);
    expect(unavailable.map((u) => u.server).sort()).toEqual(['down', 'gone', 'ok']);
    expect(unavailable.find((u) => u.server === 'ok')?.message).toBe(
      '“ok”的工具“broken”的输入模式无法使用：inputSchema.properties["a"] 是 null，不是模式对象；已将其略去。',
    );
    for (const u of unavailable) {
      expect(u.message).toMatch(HAN);
      expect(u.message).not.toMatch(ENGLISH);
    }
  });

  it('a chat that has ended: said in Chinese', async () => {
    const b = await newBrowser();
    const chat = await chatOf(new Request('http://localhost/', { headers: { cookie: b.cookie } }));
    if (!chat) throw new Error('no chat');
    await closeChat(chat.id);
    await expect(listTools(chat, 'zh')).rejects.toThrow('这个对话已结束');
  });
});
