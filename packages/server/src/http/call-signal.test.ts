/**
 * A 2025 tool call's `ctx.signal` behind `createHttpHandler`, over real HTTP on loopback through
 * either Node adapter (ours, `toNodeListener`, or the SDK's onto `fetch`): whether the handler
 * reads it before the client drops the request carrying the call or only after, it is aborted by
 * that drop (and is the same signal each time) — as the call's open question is (it ends as
 * `cancel`, `disconnected`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { auditLog } from '../../test/audit-log.js';
import { ADAPTERS, type Adapter, httpTransport, listenerOf, patientClient } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { defineTool } from '../tool.js';
import { createHttpHandler } from './handler.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

interface Seen {
  early?: boolean;
  heard?: unknown;
  action?: string;
  lateAborted?: boolean;
  same?: boolean;
}

async function serve(seen: Seen, finished: () => void, adapter: Adapter) {
  const log = auditLog();
  const kit = createElicitkit({ audit: log.sink, timeoutMs: 30_000 });
  const tool = defineTool({
    name: 'deploy',
    description: 'asks for an environment',
    inputSchema: z.object({ readEarly: z.boolean() }),
    forms: { env: form({ env: field.select(['dev', 'prod'], { title: 'Environment' }) }) },
    async run({ readEarly }, ctx) {
      const early = readEarly ? ctx.signal : undefined;
      if (early) {
        seen.early = early.aborted;
        early.addEventListener('abort', () => {
          seen.heard = early.reason;
        });
      }
      const answer = await ctx.ask('env', { message: 'Which environment?' });
      seen.action = answer.action;
      seen.lateAborted = ctx.signal.aborted;
      seen.same = early === undefined || ctx.signal === early;
      finished();
      if (answer.action !== 'accept') return answer.result();
      return done(`Deployed to ${answer.value.env}.`);
    },
  });
  const handler = createHttpHandler(() => kit.createServer({ name: 'signal', version: '1' }, [tool]), {
    abandonedSessionMs: 50,
  });
  const node = listenerOf(handler, adapter);
  const server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, log };
}

describe.each(ADAPTERS)('ctx.signal on 2025 HTTP behind createHttpHandler (%s adapter)', (adapter) => {
  for (const readEarly of [true, false]) {
    it(`aborts when the client drops the call's request (read ${readEarly ? 'before' : 'only after'} the drop)`, async () => {
      const seen: Seen = {};
      let finished!: () => void;
      const ran = new Promise<void>((resolve) => {
        finished = resolve;
      });
      const s = await serve(seen, finished, adapter);
      const c = patientClient();
      await c.client.connect(httpTransport(s.url));
      void c.client
        .callTool({ name: 'deploy', arguments: { readEarly } }, { timeout: 60_000 })
        .catch((error: unknown) => error);
      await c.asked;
      await c.client.close(); // aborts every fetch: no DELETE, no cancel
      await ran;
      expect(await s.log.response('env')).toMatchObject({ action: 'cancel', reason: 'disconnected' });
      expect(seen.action).toBe('cancel');
      expect(seen.lateAborted).toBe(true);
      expect(seen.same).toBe(true);
      if (readEarly) {
        expect(seen.early).toBe(false);
        expect(seen.heard).toBeDefined();
      }
    });
  }
});
