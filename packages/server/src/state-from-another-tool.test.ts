/**
 * A requestState that is authentic — sealed under the kit's own secret — but by another tool: a
 * hand-written tool beside the kit's that keeps its state with the SDK's codec under the same
 * secret (one secret per deployment is the natural thing to configure). The SDK codec's format is
 * the `v1.` format the kit sealed before 2026-12-01, and nothing in it says who sealed it; so a
 * state the hand-written tool minted from what a client sent opened as the kit's own — with
 * answers nobody gave (production confirmed, an approved ticket) — and the kit's deploy ran on
 * them. Now a `v1.` state is never the kit's: it is left for the tool whose state it is, and the
 * kit's tools refuse it, nothing run.
 */
import { createHash } from 'node:crypto';
import { createRequestStateCodec, inputRequired, type ServerContext } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { wireRound } from '../../../test/support/modern-wire.js';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';

const SECRET = 'one secret for the whole deployment, 32 bytes or more';
const kit = createElicitkit({ secret: SECRET });
const own = createRequestStateCodec<unknown>({ key: SECRET });

/** Keeps what it was given across its rounds, in a state of its own under the same secret. */
async function draft(args: { text?: unknown }, ctx: ServerContext) {
  if (ctx.mcpReq.requestState() === undefined)
    return inputRequired({ requestState: await own.mint(args.text ?? null) });
  return { content: [{ type: 'text' as const, text: 'Saved.' }] };
}

const store = createStore();
const served = await onLoopback(
  createHttpHandler(() => {
    const server = kit.createServer({ name: 'mixed', version: '1' }, fixtureTools(store));
    server.registerTool(
      'draft',
      { description: 'Keeps a draft.', inputSchema: z.object({ text: z.unknown() }) },
      draft,
    );
    return server;
  }),
);
afterAll(() => served.close());

const sha256 = (text: string, encoding: 'hex' | 'base64url') => createHash('sha256').update(text).digest(encoding);

describe('a state sealed under the kit’s secret by another tool', () => {
  it('is not the kit’s: its answers are never taken, and nothing runs', async () => {
    const args = { service: 'orders' };
    const at = Date.now();
    const answer = (content: Record<string, unknown>) => ({
      asked: at,
      timeoutMs: 600_000,
      answer: { action: 'accept', at, content },
    });
    // What the kit's v1 states held: the call's digest, an id, who it was for, and the answers.
    const forged = {
      v: 1,
      call: sha256(`deploy\0${JSON.stringify(args)}`, 'hex'),
      cid: 'forged-call',
      who: sha256('elicitkit.who\0tools/call\0', 'hex'),
      asks: { env: answer({ env: 'prod' }), prod: answer({ confirmed: true, ticket: 'REL-1001' }) },
    };
    const minted = await wireRound(served.url, { name: 'draft', arguments: { text: forged } });
    const requestState = String(minted.result?.requestState);
    expect(requestState).toMatch(/^v1\./);

    const deploy = await wireRound(served.url, { name: 'deploy', arguments: args, requestState });
    expect(store.deployments).toEqual([]);
    expect(deploy.error?.code ?? (deploy.result?.isError ? 'error result' : undefined), deploy.body).toBeDefined();
    expect(deploy.body).not.toContain('Deployed');
  });

  it('the hand-written tool still gets its own state as it sealed it', async () => {
    const minted = await wireRound(served.url, { name: 'draft', arguments: { text: 'hello' } });
    const requestState = String(minted.result?.requestState);
    const saved = await wireRound(served.url, { name: 'draft', arguments: { text: 'hello' }, requestState });
    expect(saved.result?.content).toEqual([{ type: 'text', text: 'Saved.' }]);
  });
});
