/**
 * A `requestState` is bound to the server that sealed it, by name. Two servers one kit builds (or
 * two services sharing a secret, as one secret per deployment invites), each with a tool of the
 * same name asking the same question, no longer take each other's states: the person's "yes" to a
 * question one server asked is never the other's confirmation. Replicas of one server (another
 * kit, the same secret and name) still take each other's, so a round may reach any of them; and a
 * server built by hand (`serverOptions()` + `register`), which knows no name, takes only states
 * sealed on such a server. Real SDK servers over loopback HTTP, raw 2026-07-28 rounds.
 */
import { field, form } from '@elicitkit/form';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const SECRET = 'one secret for every service of the deployment, 32+ bytes';

/** The same tool on every server; each server records what it ran. */
function restartTool(ran: string[]) {
  return defineTool({
    name: 'restart',
    description: 'Restart a service',
    inputSchema: z.object({ service: z.string() }),
    forms: { sure: form({ sure: field.boolean({ title: 'I am sure' }) }) },
    async run({ service }, ctx) {
      const answer = await ctx.ask('sure', { message: `Restart ${service} now?` });
      if (answer.action !== 'accept') return answer.result();
      if (!answer.value.sure) return done('Not restarted');
      return ctx.commit(() => {
        ran.push(service);
        return done(`Restarted ${service}`);
      });
    },
  });
}

const kit = createElicitkit({ secret: SECRET });
const replicaKit = createElicitkit({ secret: SECRET });
const ran = { staging: [] as string[], production: [] as string[], replica: [] as string[], hand: [] as string[] };
const staging = await onLoopback(
  createHttpHandler(() => kit.createServer({ name: 'staging-desk', version: '1' }, [restartTool(ran.staging)])),
);
const production = await onLoopback(
  createHttpHandler(() => kit.createServer({ name: 'production-desk', version: '1' }, [restartTool(ran.production)])),
);
// Another process of the staging server: another kit, the same secret and name.
const stagingReplica = await onLoopback(
  createHttpHandler(() => replicaKit.createServer({ name: 'staging-desk', version: '1' }, [restartTool(ran.replica)])),
);
const handBuilt = await onLoopback(
  createHttpHandler(() => {
    const server = new McpServer(
      { name: 'staging-desk', version: '1' },
      { capabilities: { tools: {} }, ...kit.serverOptions() },
    );
    kit.register(server, restartTool(ran.hand));
    return server;
  }),
);
// A createServer server with one more tool registered on it afterwards.
const added: string[] = [];
const extended = await onLoopback(
  createHttpHandler(() => {
    const server = kit.createServer({ name: 'extended-desk', version: '1' }, []);
    kit.register(server, restartTool(added));
    return server;
  }),
);
afterAll(async () => {
  for (const s of [staging, production, stagingReplica, handBuilt, extended]) await s.close();
});

const args = { service: 'orders' };
const yes = { sure: accept({ sure: true }) };

/** The first round on `url`: the question and the state it went out with. */
async function asked(url: string) {
  return pendingOf(await wireRound(url, { name: 'restart', arguments: args }));
}

/** The round that answers yes, sent to `url` with `requestState`. */
const answer = (url: string, requestState: string) =>
  wireRound(url, { name: 'restart', arguments: args, inputResponses: yes, requestState });

describe('a state sealed on one server, sent to another of another name', () => {
  it('is refused as any bad state, and nothing runs there', async () => {
    const { requestState, asks } = await asked(staging.url);
    expect(asks).toEqual(['sure']);
    const replayed = await answer(production.url, requestState);
    expect(replayed.error?.code, replayed.body).toBe(-32602);
    expect(replayed.body).toContain('invalid_request_state');
    expect(ran.production).toEqual([]);
    // The server that asked still takes it: the person's answer counts where they gave it.
    const taken = await answer(staging.url, requestState);
    expect(taken.result?.content, taken.body).toEqual([{ type: 'text', text: 'Restarted orders' }]);
    expect(ran.staging).toEqual(['orders']);
  });

  it('is refused from a hand-built server on a named one, and from a named one on a hand-built one', async () => {
    const fromHand = await asked(handBuilt.url);
    const onNamed = await answer(staging.url, fromHand.requestState);
    expect(onNamed.error?.code, onNamed.body).toBe(-32602);
    const fromNamed = await asked(staging.url);
    const onHand = await answer(handBuilt.url, fromNamed.requestState);
    expect(onHand.error?.code, onHand.body).toBe(-32602);
    const own = await answer(handBuilt.url, fromHand.requestState);
    expect(own.result?.content, own.body).toEqual([{ type: 'text', text: 'Restarted orders' }]);
    expect(ran.hand).toEqual(['orders']);
  });
});

describe('a state sealed on one replica of a server', () => {
  it('is taken by another replica of it', async () => {
    const before = ran.staging.length;
    const { requestState } = await asked(staging.url);
    const taken = await answer(stagingReplica.url, requestState);
    expect(taken.result?.content, taken.body).toEqual([{ type: 'text', text: 'Restarted orders' }]);
    expect(ran.replica).toEqual(['orders']);
    expect(ran.staging.length).toBe(before);
  });
});

describe('a tool registered later on a server createServer built', () => {
  it("seals for that server's name: its rounds go through, and another server's state is refused", async () => {
    const { requestState } = await asked(extended.url);
    const taken = await answer(extended.url, requestState);
    expect(taken.result?.content, taken.body).toEqual([{ type: 'text', text: 'Restarted orders' }]);
    expect(added).toEqual(['orders']);
    const fromStaging = await asked(staging.url);
    const refused = await answer(extended.url, fromStaging.requestState);
    expect(refused.error?.code, refused.body).toBe(-32602);
    expect(added).toEqual(['orders']);
  });
});
