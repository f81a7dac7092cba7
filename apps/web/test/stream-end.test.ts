/**
 * A response stream that ends cleanly without its response — a proxy cutting a long call, or a
 * server that drops it — fails the call at once as "may or may not have run" instead of leaving
 * it waiting for a person's whole answering time (the SDK's request timeout). The call is never
 * replayed, the next turn works on a fresh connection, and ordinary calls (whose streams end after
 * their response) are untouched. Real SDK server over loopback HTTP, behind a real proxy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCuttingProxy } from '../../../test/support/cutting-proxy.js';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

const upstream = await startRestartable();
// A held call says it is running before it answers anything: the cut waits for that.
const proxy = await startCuttingProxy(upstream.url, (tool) =>
  tool === 'hold' ? upstream.held(upstream.runs.hold + 1) : new Promise<void>(() => {}),
);
const cut = proxy.cut;

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-stream-end-'));
process.env.ELICITKIT_DATA = data;
// Ten minutes to answer: a call left waiting would outlast the test's own timeout by far.
process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '600000';
process.env.ELICITKIT_SERVERS = JSON.stringify([{ name: 'proxied', url: proxy.url, revision: '2025-11-25' }]);
for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ELICITKIT_MODEL']) delete process.env[name];

const { answer, ask, newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await proxy.stop();
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
