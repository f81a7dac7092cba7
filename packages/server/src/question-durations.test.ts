/**
 * How long a question waits (`timeoutMs`), how long a page is waited for after consent
 * (`urlWaitMs`, an ask's `waitMs`) and how often it is polled (`pollMs`) are checked — the kit's
 * when it is made, an ask's when it asks. Taken as they came, a question given 30 days (past what
 * one timer holds) or `NaN` timed out at once on every 2025 connection ("No answer arrived within
 * 43200 minutes", "within NaN milliseconds") while the same question waited for ever on
 * 2026-07-28, and a poll every 0 ms (or `NaN`) read the page's store about once a millisecond for
 * the whole wait. Real SDK client over a linked in-memory pair (2025-11-25).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit, type ElicitkitOptions } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const THIRTY_DAYS = 30 * 24 * 3600_000;

describe('createElicitkit: question durations out of range are refused, naming the option', () => {
  it.each([
    ['timeoutMs', THIRTY_DAYS],
    ['timeoutMs', Number.NaN],
    ['timeoutMs', Number.POSITIVE_INFINITY],
    ['timeoutMs', 0],
    ['timeoutMs', -1],
    ['urlWaitMs', Number.NaN],
    ['urlWaitMs', -1],
    ['urlWaitMs', 2 ** 31],
    ['pollMs', 0],
    ['pollMs', Number.NaN],
    ['pollMs', -5],
    ['pollMs', Number.POSITIVE_INFINITY],
  ])('%s: %s', (name, value) => {
    expect(() => createElicitkit({ [name]: value })).toThrow(
      expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(`${name} must be`) }),
    );
  });

  it('takes the edges of each range', () => {
    for (const options of [
      { timeoutMs: 1, urlWaitMs: 0, pollMs: 1 },
      { timeoutMs: 2 ** 31 - 1, urlWaitMs: 2 ** 31 - 1, pollMs: 2 ** 31 - 1 },
    ])
      expect(() => createElicitkit(options)).not.toThrow();
  });
});

/** A page question with the ask's own durations; the client consents a moment later. */
async function pageCall(ask: { timeoutMs?: number; waitMs?: number }, kitOptions: ElicitkitOptions = {}) {
  const asked: unknown[] = [];
  let checks = 0;
  const tool = defineTool({
    name: 'enrol',
    description: 'Enrols the person; they set their secret on our page.',
    inputSchema: z.object({}),
    async run(_args, { askUrl }) {
      const page = await askUrl('secret', {
        message: 'Open the page to set your secret.',
        url: 'https://accounts.example.com/secret/abc',
        isComplete: () => {
          checks += 1;
          return checks > 1;
        },
        ...ask,
      });
      return page.action === 'accept' ? done('Enrolled.') : page.result();
    },
  });
  const kit = createElicitkit({ pollMs: 5, ...kitOptions });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await kit.createServer({ name: 'accounts', version: '1' }, [tool]).connect(a);
  const client = new Client({ name: 'person', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { action: 'accept' };
  });
  await client.connect(b);
  cleanup.push(() => client.close());
  const result = await client.callTool({ name: 'enrol', arguments: {} });
  return { result, asked };
}

describe('an ask whose own durations are out of range', () => {
  it.each([
    ['timeoutMs', THIRTY_DAYS],
    ['timeoutMs', Number.NaN],
    ['waitMs', Number.NaN],
    ['waitMs', -1],
  ])('askUrl %s: %s is refused before anything is asked, naming it', async (name, value) => {
    const { result, asked } = await pageCall({ [name]: value });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(`${name} must be`);
    expect(JSON.stringify(result.content)).not.toContain('No answer arrived');
    expect(asked).toEqual([]);
  });

  it('the longest a timer holds is waited for: the person who answers is heard', async () => {
    const { result, asked } = await pageCall({ timeoutMs: 2 ** 31 - 1 });
    expect(result.structuredContent).toMatchObject({ status: 'done' });
    expect(asked).toHaveLength(1);
  });
});
