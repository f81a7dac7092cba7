/**
 * A response stream that ends cleanly without its response — a proxy cutting a long call, or a
 * server that drops it — fails the call at once as "may or may not have run" instead of leaving
 * it waiting for a person's whole answering time (the SDK's request timeout). The call is never
 * replayed, the next turn works on a fresh connection, and ordinary calls (whose streams end after
 * their response) are untouched. Real SDK server over loopback HTTP, behind a real proxy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

const upstream = await startRestartable();

/** Calls of these tools reach the server, but their response stream is ended empty. */
const cut = new Set<string>();
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const proxy = createServer(async (req, res) => {
  const body = req.method === 'POST' ? await bodyOf(req) : undefined;
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k, v]) => !HOP_BY_HOP.has(k) && typeof v === 'string') as [string, string][],
  );
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  let cutting = false;
  if (body) {
    const message = JSON.parse(body.toString('utf8')) as { method?: string; params?: { name?: string } };
    cutting = message.method === 'tools/call' && cut.has(message.params?.name ?? '');
  }
  const heldBefore = upstream.runs.hold;
  const replying = fetch(upstream.url, {
    method: req.method ?? 'GET',
    headers,
    ...(body ? { body: new Uint8Array(body) } : {}),
    signal: abort.signal,
  }).catch(() => undefined);
  if (cutting) {
    // The call runs upstream (a held one says so before it answers anything); the client is told
    // nothing but an event stream that ends.
    await Promise.race([replying, upstream.held(heldBefore + 1)]);
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
    return;
  }
  const reply = await replying;
  if (!reply) return void res.destroy();
  res.writeHead(reply.status, Object.fromEntries(reply.headers));
  if (!reply.body) return void res.end();
  try {
    for await (const chunk of reply.body) res.write(chunk);
  } catch {
    // The client went away: the abort above stops the upstream read.
  }
  res.end();
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-stream-end-'));
process.env.ELICITKIT_DATA = data;
// Ten minutes to answer: a call left waiting would outlast the test's own timeout by far.
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '600000';
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'proxied', url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`, revision: '2025-11-25' },
]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { answer, ask, newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await upstream.stop();
  rmSync(data, { recursive: true, force: true });
});

type Chunk = Record<string, unknown> & { output?: { text?: string }; errorText?: string };
const outputOf = (chunks: Chunk[]) => chunks.find((c) => c.type === 'tool-output-available')?.output;
const errorOf = (chunks: Chunk[]) => chunks.find((c) => c.type === 'tool-output-error')?.errorText;

describe('a response stream that ends without its response', () => {
  it('fails the call at once as "may have run", never replays it, and the next turn works', async () => {
    const b = await newBrowser();
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start \d+$/);
    const before = upstream.runs.status;
    cut.add('status');
    try {
      const chunks = (await turn(b, '/status')) as Chunk[];
      expect(errorOf(chunks)).toContain('may or may not have run');
      expect(outputOf(chunks)).toBeUndefined();
    } finally {
      cut.delete('status');
    }
    // It reached the server once, and was not sent again.
    expect(upstream.runs.status).toBe(before + 1);
    expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start \d+$/);
    expect(upstream.runs.status).toBe(before + 2);
  });

  it('a call still running upstream is not waited for', async () => {
    const b = await newBrowser();
    const before = upstream.runs.hold;
    cut.add('hold');
    try {
      expect(errorOf((await turn(b, '/hold')) as Chunk[])).toContain('may or may not have run');
    } finally {
      cut.delete('hold');
    }
    expect(upstream.runs.hold).toBe(before + 1);
  });

  it('leaves calls whose streams carry their response alone, questions included', async () => {
    const b = await newBrowser();
    for (let i = 0; i < 3; i++) expect(outputOf((await turn(b, '/status')) as Chunk[])?.text).toMatch(/^start/);
    const q = await ask(b, '/ask_env');
    expect((await answer(b, q.id, { action: 'accept', content: { env: 'dev' } })).status).toBe(200);
    expect(outputOf((await q.rest) as Chunk[])?.text).toBe('env dev');
  });
});
