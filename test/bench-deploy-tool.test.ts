/**
 * The ask() bench's two sides check the same things on 2026-07-28 (bench/support/deploy-tool.ts,
 * bench/ask-overhead.ts): an answer counts only with the requestState its question went out with,
 * for the same call. Sent as raw HTTP rounds over a real socket, the way a client that makes up
 * answers would send them. The raw tool without a state (the bench's information line) is shown
 * taking an answer nobody was asked for: that is the work the compared side does and it does not.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import { kitServerOf } from '../bench/ask-overhead.js';
import { rawServer } from '../bench/support/deploy-tool.js';
import { accept, pendingOf, type WireRound, wireRound } from './support/modern-wire.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function serve(factory: () => McpServer): Promise<string> {
  const handler = createMcpHandler(factory);
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => void node(req as Parameters<typeof node>[0], res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await handler.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const kitServer = kitServerOf();
const deploy = (service: string, more: { inputResponses?: Record<string, unknown>; requestState?: string } = {}) => ({
  name: 'deploy',
  arguments: { service },
  ...more,
});
const answered = { env: accept({ env: 'prod' }) };
/** The text of a result that ended the call; undefined for another question or an error. */
const deployedTo = (round: WireRound) =>
  round.result?.resultType === 'input_required'
    ? undefined
    : (round.result?.content as { text: string }[] | undefined)?.[0]?.text;

describe.each([
  ['the raw SDK tool', () => rawServer()],
  ['the ask() tool', () => kitServer()],
])('%s on 2026-07-28', (_name, factory) => {
  it('asks, and deploys with the answer given with the state the question went out with', async () => {
    const url = await serve(factory);
    const first = await wireRound(url, deploy('orders'));
    const { requestState, asks } = pendingOf(first);
    expect(asks).toEqual(['env']);
    expect(deployedTo(await wireRound(url, deploy('orders', { inputResponses: answered, requestState })))).toBe(
      'Deployed orders to prod',
    );
  });

  it('takes no answer sent with the first call: the question is asked', async () => {
    const url = await serve(factory);
    const round = await wireRound(url, deploy('orders', { inputResponses: answered }));
    expect(pendingOf(round).asks).toEqual(['env']);
  });

  it('takes no answer sent with the state of another call', async () => {
    const url = await serve(factory);
    const { requestState } = pendingOf(await wireRound(url, deploy('orders')));
    const round = await wireRound(url, deploy('billing', { inputResponses: answered, requestState }));
    // The raw tool asks again; ask() refuses the state as another call's.
    expect(deployedTo(round)).toBeUndefined();
    expect(round.body).not.toContain('Deployed');
  });

  it('takes no answer sent with a state changed by the client', async () => {
    const url = await serve(factory);
    const { requestState } = pendingOf(await wireRound(url, deploy('orders')));
    // The first character of the MAC (after the last dot) carries six bits of it: the SDK's codec
    // decodes base64url leniently, so a changed last character can be bits it ignores (…AB and …AA
    // are the same 32 bytes), and the 'forged' state the very one it minted.
    const at = requestState.lastIndexOf('.') + 1;
    const forged = `${requestState.slice(0, at)}${requestState[at] === 'A' ? 'B' : 'A'}${requestState.slice(at + 1)}`;
    expect(forged).not.toBe(requestState);
    const round = await wireRound(url, deploy('orders', { inputResponses: answered, requestState: forged }));
    expect(round.body).not.toContain('Deployed');
  });
});

describe('the raw SDK tool without a state (the information line)', () => {
  it('takes an answer sent with the first call, to a question nobody was shown', async () => {
    const url = await serve(() => rawServer({ sealState: false }));
    const round = await wireRound(url, deploy('orders', { inputResponses: answered }));
    expect(deployedTo(round)).toBe('Deployed orders to prod');
  });
});
