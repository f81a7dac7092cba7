/**
 * A 2026-07-28 page question whose URL changes on every round (a fresh link per look) never holds
 * still, so the call ends as `question_unstable` — but each of those links was put to the person,
 * who consented and may have finished the flow on one of them. Ending the question is ending it:
 * `isComplete` is asked once more with `final: true` (the tool closes the flow in that step), and
 * a finished flow ends as accept, never as "nothing was done" beside what the page did. Rounds
 * by hand through the SDK's handler.
 */
import { createMcpHandler, isInputRequiredResult } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { roundsClient } from '../test/rounds.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A page flow with a new link on every look; `finished` once the person submits on any of them. */
function linkTool(page: { finished: boolean; checks: boolean[]; closed: boolean }) {
  let looks = 0;
  return defineTool({
    name: 'enrol',
    description: 'Enrols the person; they set their secret on our page.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ enrolled: z.boolean() }),
    async run(_args, { askUrl }) {
      looks += 1;
      const answer = await askUrl('secret', {
        message: 'Open the page to set your secret.',
        url: `https://accounts.example.com/secret/link-${looks}`,
        isComplete: ({ final }) => {
          page.checks.push(final);
          if (final) page.closed = true;
          return page.finished;
        },
      });
      if (answer.action === 'accept') return done('Enrolled.', { enrolled: true });
      return answer.result();
    },
  });
}

/** Rounds until the call ends; the person opens each link shown and, `finishes`, submits there. */
async function unstable(page: { finished: boolean; checks: boolean[]; closed: boolean }, finishes: boolean) {
  const kit = createElicitkit({ urlWaitMs: 0, pollMs: 5 });
  const tool = linkTool(page);
  const handler = createMcpHandler(() => kit.createServer({ name: 'accounts', version: '1' }, [tool]));
  const alice = await roundsClient(handler, { tool: 'enrol', capabilities: { elicitation: { url: {} } } });
  cleanup.push(() => alice.client.close());
  let result = await alice.round({});
  for (let round = 0; round < 10 && isInputRequiredResult(result); round++) {
    if (finishes) page.finished = true;
    const accept = { inputResponses: { secret: { action: 'accept' } }, requestState: result.requestState };
    result = await alice.round({}, accept);
  }
  return result;
}

describe('a page question whose link never held still', () => {
  it('2026-07-28: a flow finished on one of its links ends as accept, not "nothing was done"', async () => {
    const page = { finished: false, checks: [] as boolean[], closed: false };
    const result = await unstable(page, true);
    expect(result).toMatchObject({ structuredContent: { status: 'done', enrolled: true } });
    expect(page.checks.filter(Boolean)).toHaveLength(1);
  });

  it('2026-07-28: an unfinished flow is closed by the last check and the call ends invalid', async () => {
    const page = { finished: false, checks: [] as boolean[], closed: false };
    const result = await unstable(page, false);
    expect(result).toMatchObject({ structuredContent: { status: 'invalid' } });
    // A flow left open after the call ended would let a submit make what the call says was not made.
    expect(page.closed).toBe(true);
    expect(page.checks.filter(Boolean)).toHaveLength(1);
  });
});
