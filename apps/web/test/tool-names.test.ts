/**
 * With several servers a tool is listed as `server__tool`, and a tool's own name may hold `__`
 * too: `/files__read__all` runs the files server's `read__all`, never its `read` (nor another
 * server's), and a server whose name ends in `_` keeps its tools. Two real Elicitkit servers over loopback HTTP, driven through the route handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';

/** A server whose every tool answers with its server's name and its own. */
async function serve(server: string, tools: string[]) {
  const kit = createElicitkit();
  const declared = tools.map((name) =>
    defineTool({
      name,
      description: `The ${name} tool of ${server}.`,
      inputSchema: z.object({}),
      async run() {
        return done(`${server} ran ${name}`);
      },
    }),
  );
  const http = createHttpHandler(() => kit.createServer({ name: server, version: '1.0.0' }, declared));
  const listener = createServer(toNodeListener(http));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`,
    async close() {
      await http.close();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}

const files = await serve('files', ['read', 'read__all']);
const notes = await serve('notes', ['read', 'all']);
// `files_` ends in `_`: `files___list` begins with `files__` as well as with `files___`.
const more = await serve('files_', ['list']);
const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-tool-names-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'files', url: files.url, revision: '2025-11-25' },
  { name: 'notes', url: notes.url, revision: '2025-11-25' },
  { name: 'files_', url: more.url, revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { newBrowser, turn } = await import('./chat-client');
const { GET: getTools } = await import('../app/api/tools/route');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await Promise.all([files.close(), notes.close(), more.close()]);
  rmSync(data, { recursive: true, force: true });
});

type Chunk = Record<string, unknown> & { output?: { text?: string }; errorText?: string };
const ran = (chunks: Chunk[]) => {
  const output = chunks.find((c) => c.type === 'tool-output-available')?.output;
  return output?.text ?? chunks.find((c) => c.type === 'tool-output-error')?.errorText;
};

describe('a tool whose own name holds "__"', () => {
  it('is listed under its server with its whole name', async () => {
    const b = await newBrowser();
    const response = await getTools(new Request('http://localhost/api/tools', { headers: { cookie: b.cookie } }));
    const { tools } = (await response.json()) as { tools: { name: string; server: string }[] };
    expect(tools.map((t) => `${t.server}: ${t.name}`).sort()).toEqual([
      'files: files__read',
      'files: files__read__all',
      'files_: files___list',
      'notes: notes__all',
      'notes: notes__read',
    ]);
  });

  it('runs that tool on its own server, not the tool named by its first part', async () => {
    const b = await newBrowser();
    expect(ran((await turn(b, '/files__read__all')) as Chunk[])).toBe('files ran read__all');
    expect(ran((await turn(b, '/files__read')) as Chunk[])).toBe('files ran read');
    expect(ran((await turn(b, '/notes__all')) as Chunk[])).toBe('notes ran all');
    expect(ran((await turn(b, '/files___list')) as Chunk[])).toBe('files_ ran list');
  });
});
