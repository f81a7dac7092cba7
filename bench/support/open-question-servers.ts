/**
 * The two servers `bench/open-questions.ts` holds questions open on, each on its own `node:http`
 * server on loopback, serving every revision on one `/mcp` endpoint:
 *
 * - `serveRaw`: the raw SDK composed as its docs compose it (the same endpoint as the raw side of
 *   `ask-overhead.ts`'s socket lines): Host and Origin checks, a JSON POST's body read and parsed
 *   once, `isLegacyRequest` choosing between a 2025 session (a `WebStandardStreamableHTTPServerTransport`
 *   and an `McpServer` per session, found by `mcp-session-id`) and `createMcpHandler` for
 *   2026-07-28; behind the SDK's `toNodeHandler`. The tool asks with `elicitInput` (10-minute
 *   timeout) on 2025 sessions and returns `inputRequired` on 2026-07-28, checking the answer with zod.
 * - `serveKit`: `createHttpHandler` + `defineTool`/`ask()` with the same form, message, input schema
 *   and result, behind `toNodeListener`; its per-identity caps raised for one identity opening
 *   `capacity` sessions (as `burst.ts` raises them), every other option at its default; a new kit
 *   for each server. `BENCH_OPEN_KIT=<dist directory>` runs it on another build of
 *   `@elicitkit/server` (a copy of `packages/server/dist` kept inside the repository, as
 *   `ask-builds.ts` takes one), for a before/after in one run.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Kit from '@elicitkit/server';
import type * as KitNode from '@elicitkit/server/node';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { envForm, inputSchema, message, rawServer } from './deploy-tool.js';
import { rawEndpoint } from './raw-endpoint.js';

/** A server listening on loopback, and how to end everything it holds. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

async function listen(listener: RequestListener, closeEndpoint: () => Promise<void>): Promise<Served> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeEndpoint();
    },
  };
}

export async function serveRaw(): Promise<Served> {
  const endpoint = rawEndpoint(() => rawServer());
  const node = toNodeHandler(endpoint);
  return listen(
    (req, res) => void node(req as Parameters<typeof node>[0], res),
    () => endpoint.close(),
  );
}

/** This build's `@elicitkit/server`, or the one `BENCH_OPEN_KIT` names (its bundled entries). */
const build = process.env.BENCH_OPEN_KIT;
const entry = (name: string) => pathToFileURL(resolve(build ?? '', 'bundled', `${name}.js`)).href;
const lib: typeof Kit = build ? await import(entry('index')) : await import('@elicitkit/server');
const { toNodeListener }: typeof KitNode = build ? await import(entry('node')) : await import('@elicitkit/server/node');

const deploy = lib.defineTool({
  name: 'deploy',
  description: 'deploy',
  inputSchema,
  forms: { env: envForm },
  async run({ service }, { ask }) {
    const answer = await ask('env', { message: message(service) });
    if (answer.action !== 'accept') return answer.result();
    return lib.done(`Deployed ${service} to ${answer.value.env}`);
  },
});

/**
 * `capacity`: how many sessions (each with one question in flight) the one identity may hold. A
 * kit of its own, as a server that has just started has: whatever the kit keeps per call (kept
 * 2026-07-28 states, say) shows as held, not hidden by what earlier rounds left in it.
 */
export async function serveKit(capacity: number): Promise<Served> {
  const kit = lib.createElicitkit();
  const handler = lib.createHttpHandler(() => kit.createServer({ name: 'kit', version: '1' }, [deploy]), {
    maxSessions: capacity,
    maxSessionsPerIdentity: capacity,
    maxInFlightPerIdentity: capacity,
  });
  return listen(toNodeListener(handler), () => handler.close());
}
