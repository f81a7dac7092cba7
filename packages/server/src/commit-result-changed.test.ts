/**
 * A result `commit` handed back, then changed by the handler before it returned it: given a value
 * JSON cannot hold (a BigInt, a cycle, a `toJSON` that throws), it must still reach its caller —
 * marked `unrecorded`, what JSON can hold of it — on every transport, never be left unsent (the
 * SDK reports a failed send to no one and the caller waits until their timeout).
 */
import { field, form } from '@elicitkit/form';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { accept, pendingOf, wireRound } from '../../../test/support/modern-wire.js';
import { httpTransport, onLoopback } from '../test/loopback.js';
import { createHttpHandler } from './http/handler.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const envForm = form({
  env: field.select(
    ['dev', 'prod'].map((value) => ({ value, title: value })),
    { title: 'Environment' },
  ),
});

const changes: Record<string, (structured: Record<string, unknown>) => void> = {
  bigint: (s) => {
    s.id = 10n;
  },
  cycle: (s) => {
    s.self = s;
  },
  'throwing toJSON': (s) => {
    s.when = {
      toJSON() {
        throw new Error('no');
      },
    };
  },
};

const effects: string[] = [];
const tools = Object.entries(changes).map(([name, change]) =>
  defineTool({
    name: `deploy_${name.replace(/\W/g, '_')}`,
    description: 'Deploys a service.',
    forms: { env: envForm },
    async run(_args, ctx) {
      const answer = await ctx.ask('env', { message: 'Which environment should the service be deployed to?' });
      if (answer.action !== 'accept') return answer.result();
      const result = await ctx.commit(() => {
        effects.push(answer.value.env);
        return done(`Deployed to ${answer.value.env}.`, { env: answer.value.env });
      });
      change(result.structuredContent as Record<string, unknown>);
      return result;
    },
  }),
);
const kit = createElicitkit({ secret: 'a secret of at least thirty-two characters, for this test' });

describe.each(Object.keys(changes))('a result commit handed back, then given a %s', (name) => {
  const tool = `deploy_${name.replace(/\W/g, '_')}`;

  it.each(['in memory', 'over HTTP'])(
    'reaches its 2025-11-25 caller %s marked unrecorded, the effect run once',
    async (way) => {
      effects.length = 0;
      const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'prod' } }));
      let close = async () => {};
      if (way === 'in memory') {
        const [a, b] = InMemoryTransport.createLinkedPair();
        await kit.createServer({ name: 't', version: '1' }, tools).connect(a);
        await client.connect(b);
      } else {
        const serving = await onLoopback(createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, tools)));
        close = () => serving.close();
        await client.connect(httpTransport(serving.url));
      }
      try {
        // Unsendable, it would never come: the SDK's send fails and nobody is told.
        const result = await client.callTool({ name: tool, arguments: {} }, { timeout: 5_000 });
        expect(effects).toEqual(['prod']);
        expect(result.structuredContent).toMatchObject({ status: 'done', env: 'prod', outcome: 'unrecorded' });
      } finally {
        await client.close();
        await close();
      }
    },
  );

  it('reaches its 2026-07-28 caller marked unrecorded, the effect run once', async () => {
    effects.length = 0;
    const serving = await onLoopback(createHttpHandler(() => kit.createServer({ name: 't', version: '1' }, tools)));
    try {
      const call = { name: tool, arguments: {} };
      const first = pendingOf(await wireRound(serving.url, call));
      const final = { ...call, inputResponses: { env: accept({ env: 'prod' }) }, requestState: first.requestState };
      // Unsendable, it would never come: the SDK's send fails and nobody is told.
      const answered = await wireRound(serving.url, final);
      expect(effects).toEqual(['prod']);
      expect(answered.result?.structuredContent).toMatchObject({ status: 'done', env: 'prod', outcome: 'unrecorded' });
    } finally {
      await serving.close();
    }
  });
});
