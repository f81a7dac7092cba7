/**
 * One web app replica for the multi-replica test: the app's route handlers behind a plain Node
 * HTTP server on a free loopback port (what `next start` does for them, without the build). Run
 * as a child process, configured by the environment (REDIS_URL, ELICITKIT_DATA, …); prints
 * `listening <port>` when ready and exits on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const { GET: getChatInfo } = await import('../app/api/chat/info/route');
const { POST: postClose } = await import('../app/api/chat/close/route');
const { POST: postChat } = await import('../app/api/chat/route');
const { POST: postIdentity } = await import('../app/api/chat/identity/route');
const { GET: getTools } = await import('../app/api/tools/route');
const { POST: postAnswer } = await import('../app/api/elicitations/[id]/route');
const { resetState } = await import('../lib/state');
const { stopOpsdesk } = await import('../lib/opsdesk');

function route(method: string, path: string): { handler: Handler; params: Record<string, string> } | undefined {
  const answer = /^\/api\/elicitations\/([^/]+)$/.exec(path);
  if (method === 'POST' && answer) return { handler: postAnswer as Handler, params: { id: answer[1] as string } };
  const fixed: Record<string, Handler> = {
    'GET /api/chat/info': getChatInfo,
    'POST /api/chat/close': postClose,
    'POST /api/chat': postChat,
    'POST /api/chat/identity': postIdentity,
    'GET /api/tools': getTools,
  };
  const handler = fixed[`${method} ${path}`];
  return handler ? { handler, params: {} } : undefined;
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const found = route(req.method ?? 'GET', url.pathname);
  if (!found) {
    res.writeHead(404).end();
    return;
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  headers.set('x-forwarded-for', req.socket.remoteAddress ?? 'unknown');
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(url, {
    method: req.method ?? 'GET',
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await found.handler(request, { params: Promise.resolve(found.params) });
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    out[key] = key === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  res.writeHead(response.status, out);
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  }
  res.end();
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', async () => {
  server.closeAllConnections();
  server.close();
  await resetState();
  await stopOpsdesk();
  process.exit(0);
});
