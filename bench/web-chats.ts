/**
 * What does a chat cost the web app? 500 browsers each open a chat (GET /api/chat/info), list the
 * tools (GET /api/tools: the chat's MCP client connects to the one bundled opsdesk) and then sit
 * idle; then each starts a turn that asks a question and leaves it open. The route handlers run
 * in this process with opsdesk in it, as `npm start` runs them, so this process's RSS plus its
 * children's (opsdesk's shop process) is the web app + opsdesk. Measured after a full GC.
 *
 *   npm run bench:chats          # node --expose-gc --import tsx bench/web-chats.ts; BENCH_CHATS=500
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHATS = Number(process.env.BENCH_CHATS ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const data = mkdtempSync(join(tmpdir(), 'elicitkit-bench-chats-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_MAX_CHATS_PER_ADDRESS = String(CHATS + 10);
process.env.ELICITKIT_MAX_CHATS = String(CHATS + 10);

// The web app's modules are Next.js sources (extensionless imports): load them through tsx at
// run time rather than through this folder's typecheck.
type Handler = (request: Request) => Promise<Response>;
const web = (path: string) => import(new URL(`../apps/web/${path}`, import.meta.url).href);
const { GET: getChatInfo } = (await web('app/api/chat/info/route.ts')) as { GET: Handler };
const { GET: getTools } = (await web('app/api/tools/route.ts')) as { GET: Handler };
const { POST: postChat } = (await web('app/api/chat/route.ts')) as { POST: Handler };
const { resetState } = (await web('lib/state.ts')) as { resetState: () => Promise<void> };
const { stopOpsdesk } = (await web('lib/opsdesk.ts')) as { stopOpsdesk: () => Promise<void> };

function childrenRss(): number {
  let total = 0;
  for (const task of readdirSync('/proc/self/task')) {
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
      const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      total += Number(line?.[1] ?? 0) * 1024;
    }
  }
  return total;
}

async function rss(): Promise<{ self: number; children: number }> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { self: process.memoryUsage().rss, children: childrenRss() };
}

interface Browser {
  cookie: string;
  csrf: string;
}

async function open(i: number): Promise<Browser> {
  const response = await getChatInfo(
    new Request('http://localhost/api/chat/info', { headers: { 'x-forwarded-for': `10.1.${i >> 8}.${i & 255}` } }),
  );
  if (response.status !== 200) throw new Error(`chat ${i}: ${response.status} ${await response.text()}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const { csrf } = (await response.json()) as { csrf: string };
  const tools = await getTools(new Request('http://localhost/api/tools', { headers: { cookie } }));
  if (tools.status !== 200) throw new Error(`chat ${i} tools: ${tools.status}`);
  await tools.arrayBuffer();
  return { cookie, csrf };
}

/** Starts a turn that asks, and returns once the question is in the stream (the stream stays open). */
async function askAndIdle(b: Browser): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await postChat(
    new Request('http://localhost/api/chat', {
      method: 'POST',
      headers: { cookie: b.cookie, 'x-elicitkit-csrf': b.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [
          { id: 'm1', role: 'user', parts: [{ type: 'text', text: '/deploy_service service=order-service' }] },
        ],
      }),
    }),
  );
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const decoder = new TextDecoder();
  while (!text.includes('"status":"open"')) {
    const next = await reader.read();
    if (next.done) throw new Error(`no question: ${text}`);
    text += decoder.decode(next.value);
  }
  return reader;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
try {
  await open(-1); // the first chat starts opsdesk: not a per-chat cost
  const base = await rss();
  const browsers: Browser[] = [];
  for (let i = 0; i < CHATS; i++) browsers.push(await open(i));
  const connected = await rss();
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  for (const b of browsers) readers.push(await askAndIdle(b));
  const asking = await rss();
  const line = (label: string, now: { self: number; children: number }) => {
    const grew = now.self + now.children - base.self - base.children;
    console.log(
      `${label.padEnd(44)} RSS ${mb(now.self)} MB (+children ${mb(now.children)} MB): +${mb(grew)} MB, ${(grew / CHATS / 1024).toFixed(0)} KB per chat`,
    );
  };
  console.log(
    `Node ${process.version}, ${CHATS} chats; baseline RSS ${mb(base.self)} MB + children ${mb(base.children)} MB`,
  );
  line(`${CHATS} chats open, connected, idle`, connected);
  line(`… and each with one question open`, asking);
  for (const r of readers) await r.cancel().catch(() => undefined);
} finally {
  await resetState();
  await stopOpsdesk();
  rmSync(data, { recursive: true, force: true });
}
