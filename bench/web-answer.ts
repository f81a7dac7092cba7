/**
 * The web answer path: `POST /api/elicitations/{id}` → the tool result in the chat stream,
 * through the web app's real route handlers called in this process (session, chat, answer; the
 * chat turn calls opsdesk as the app does), against a direct stdio SDK client to opsdesk on the
 * same revision, 2026-07-28 (answer returned by its elicitation handler → callTool resolved). Next's own HTTP server is not
 * in the path (it needs `npm run build:web`); BENCH_WEB=0 skips this line. Paired, alternating.
 *
 *   BENCH_WEB_PAIRS=40 (default); PROFILE_WINDOWS=/tmp/w.json writes each timed web answer's
 *   window for `node --cpu-prof` (as `ask-profile.ts` does)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { iqr, p50, report, yieldToLoop } from './support/stats.js';

const PAIRS = Number(process.env.BENCH_WEB_PAIRS ?? 40);
/** For a profiler: each timed web answer's [start, end] in monotonic µs (the clock of V8's profiles). */
const windows: [number, number][] = [];
const micros = () => Number(process.hrtime.bigint() / 1000n);
const root = fileURLToPath(new URL('..', import.meta.url));

type Handler = (request: Request, ctx?: { params: Promise<{ id: string }> }) => Promise<Response>;

/** Reads SSE chunks from a chat stream. */
function chunks(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  return async (): Promise<Record<string, unknown> | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const json = buffer.slice(0, end).replace(/^data: /, '');
        buffer = buffer.slice(end + 2);
        if (json === '[DONE]') return undefined;
        return JSON.parse(json) as Record<string, unknown>;
      }
      const read = await reader.read();
      if (read.done) return undefined;
      buffer += read.value;
    }
  };
}

export async function webAnswer(): Promise<void> {
  console.log(`\nWeb answer path: POST /api/elicitations/{id} → tool result in the chat stream (${PAIRS} pairs)`);
  if (process.env.BENCH_WEB === '0') {
    report({ goal: 'web answer → result p50 ≤ 8 ms', figure: 'skipped (BENCH_WEB=0)', pass: undefined });
    return;
  }
  const data = mkdtempSync(join(tmpdir(), 'ek-bench-web-'));
  process.env.ELICITKIT_DATA = data;
  process.env.ELICITKIT_QUESTION_TIMEOUT_MS = '60000';
  // Loaded by URL: the web app's sources are typed and resolved by its own tsconfig, not this one.
  const route = async (path: string) =>
    (await import(new URL(`../apps/web/app/api/${path}/route.ts`, import.meta.url).href)) as Record<string, Handler>;
  const getChatInfo = (await route('chat/info')).GET as Handler;
  const postChat = (await route('chat')).POST as Handler;
  const postAnswer = (await route('elicitations/[id]')).POST as Handler;
  const closeChat = (await route('chat/close')).POST as Handler;
  // The web app's policy allows 10 questions a minute per chat, so a new chat (a new browser
  // session, its own MCP session on the app's one opsdesk) takes over every 8 turns and the old
  // one is closed; both are outside the timing.
  let headers: Record<string, string> = {};
  /** The page the chat in use was opened for: the beacon that closes it names it. */
  let page = '';
  let turns = 0;
  /** Closes the chat in use, as its tab's beacon would: the app caps open chats per address. */
  async function closeCurrent(): Promise<void> {
    if (!headers.cookie) return;
    const closed = await closeChat(
      new Request('http://localhost/api/chat/close', {
        method: 'POST',
        headers: { cookie: headers.cookie, 'content-type': 'text/plain' },
        body: JSON.stringify({ csrf: headers['x-elicitkit-csrf'], page }),
      }),
    );
    if (closed.status !== 204) throw new Error(`the chat did not close: ${closed.status} ${await closed.text()}`);
  }
  async function newChat(): Promise<void> {
    await closeCurrent();
    const session = await getChatInfo(new Request('http://localhost/api/chat/info'));
    const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    if (session.status !== 200) throw new Error(`no chat opened: ${session.status} ${await session.text()}`);
    const opened = (await session.json()) as { csrf: string; page: string };
    page = opened.page;
    headers = { cookie, 'x-elicitkit-csrf': opened.csrf, 'content-type': 'application/json' };
  }

  /** One chat turn: open the question, then time the answer until the tool result arrives. */
  async function viaWeb(): Promise<number> {
    if (turns++ % 8 === 0) await newChat();
    const response = await postChat(
      new Request('http://localhost/api/chat', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          messages: [
            { id: 'm1', role: 'user', parts: [{ type: 'text', text: '/deploy_service service=order-service' }] },
          ],
        }),
      }),
    );
    if (response.status !== 200)
      throw new Error(`the chat turn was refused: ${response.status} ${await response.text()}`);
    const next = chunks(response);
    let id: string | undefined;
    const seen: unknown[] = [];
    while (!id) {
      const chunk = await next();
      seen.push(chunk);
      if (!chunk) throw new Error(`the chat stream ended without a question: ${JSON.stringify(seen).slice(0, 800)}`);
      const d = chunk.data as { status?: string; id?: string } | undefined;
      if (chunk.type === 'data-elicitation' && d?.status === 'open') id = String(d.id);
    }
    const started = performance.now();
    const startedMicros = micros();
    const answered = await postAnswer(
      new Request(`http://localhost/api/elicitations/${id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ action: 'accept', content: { env: 'dev' } }),
      }),
      { params: Promise.resolve({ id }) },
    );
    if (answered.status !== 200) throw new Error(`answer refused: ${answered.status}`);
    for (;;) {
      const chunk = await next();
      if (!chunk) throw new Error('the chat stream ended without the tool result');
      if (chunk.type === 'tool-output-available') {
        const ms = performance.now() - started;
        windows.push([startedMicros, micros()]);
        while (await next()) {}
        await yieldToLoop();
        return ms;
      }
    }
  }

  // The same revision the web app speaks to its opsdesk (2026-07-28), so the ratio is the web's own layers.
  const direct = new Client(
    { name: 'direct', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  let answeredAt = 0;
  direct.setRequestHandler('elicitation/create', async () => {
    answeredAt = performance.now();
    return { action: 'accept', content: { env: 'dev' } };
  });
  const directData = mkdtempSync(join(tmpdir(), 'ek-bench-web-direct-'));
  await direct.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'apps/cli/bin/elicitkit.js'), 'serve', '--stdio', '--data', directData],
      stderr: 'ignore',
    }),
  );
  async function viaStdio(): Promise<number> {
    const r = await direct.callTool({ name: 'deploy_service', arguments: { service: 'order-service' } });
    const ms = performance.now() - answeredAt;
    if ((r.structuredContent as { status?: string } | undefined)?.status !== 'done') throw new Error('not done');
    await yieldToLoop();
    return ms;
  }

  try {
    for (let i = 0; i < 5; i++) {
      await viaWeb();
      await viaStdio();
    }
    const web: number[] = [];
    const stdio: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const webFirst = i % 2 === 0;
      const first = webFirst ? await viaWeb() : await viaStdio();
      const second = webFirst ? await viaStdio() : await viaWeb();
      const [w, s] = webFirst ? [first, second] : [second, first];
      web.push(w);
      stdio.push(s);
      ratios.push(w / s);
    }
    // The last chat is closed as its tab would close it: the close path runs however few the pairs.
    await closeCurrent();
    console.log(
      `  web p50 ${p50(web).toFixed(2)} ms (IQR ${iqr(web)}), direct stdio client p50 ${p50(stdio).toFixed(2)} ms; paired ratio p50 ${p50(ratios).toFixed(2)}×`,
    );
    report({
      goal: 'web answer → result p50 ≤ 8 ms (route handlers in-process)',
      figure: `${p50(web).toFixed(2)} ms p50 (${p50(ratios).toFixed(2)}× a direct stdio client, paired)`,
      pass: p50(web) <= 8,
    });
    if (process.env.PROFILE_WINDOWS) writeFileSync(process.env.PROFILE_WINDOWS, JSON.stringify(windows));
  } finally {
    await direct.close().catch(() => {});
    rmSync(data, { recursive: true, force: true });
    rmSync(directData, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await webAnswer();
  process.exit(0); // the web app's opsdesk child and registries keep the loop alive
}
