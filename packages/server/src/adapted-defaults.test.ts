/**
 * A known client's quirk reshapes a boolean into a Yes/No choice (Trae): the default it had is a
 * choice's default then, which a 2025-06-18 client is never shown (that revision shows boolean
 * defaults only), so the field goes out as required. An answer that leaves it out is missing it —
 * never completed with the default the person was not shown. On 2025-11-25 and 2026-07-28 the
 * choice shows its default, and an answer without it takes it, as with any field.
 */
import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { type Connected, call, connect, type PathName } from '../test/harness.js';
import { createElicitkit } from './kit.js';
import { done, outcomeSchema } from './results.js';
import { defineTool } from './tool.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const announce = form({
  notify: field.boolean({ title: 'Notify all customers by e-mail', default: true }).optional(),
  ticket: field.string({ title: 'Release ticket', minLength: 4 }),
});

async function setup(path: PathName) {
  const effects: unknown[] = [];
  const tool = defineTool({
    name: 'announce',
    description: 'Announces a release.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ notify: z.boolean().optional() }),
    forms: { q: announce },
    async run(_args, ctx) {
      const a = await ctx.ask('q', { message: 'Announce the release: give the ticket and the options.' });
      if (a.action !== 'accept') return a.result();
      effects.push(a.value);
      return done(`announced ${a.value.ticket}`, { notify: a.value.notify });
    },
  });
  const kit = createElicitkit();
  const c = await connect(path, () => kit.createServer({ name: 'adapted', version: '1.0.0' }, [tool]), {
    clientName: 'Trae',
    script: [{ action: 'accept', content: { ticket: 'REL-1001' } }],
  });
  open = c;
  return { c, effects };
}

describe('a boolean with a default, asked of Trae as a Yes/No choice, left out of the answer', () => {
  it('on 2025-06-18, where the choice was sent without its default and required: invalid, nothing done', async () => {
    const { c, effects } = await setup('memory-2025-06-18');
    const r = await call(c, 'announce');
    const sent = c.seen[0] as {
      requestedSchema: { properties: Record<string, { default?: unknown }>; required?: string[] };
    };
    expect(sent.requestedSchema.properties.notify?.default).toBeUndefined();
    expect(sent.requestedSchema.required).toContain('notify');
    expect(r.status).toBe('invalid');
    expect(r.text).toContain('Notify all customers by e-mail is required');
    expect(effects).toEqual([]);
  });

  it.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])(
    'over %s, where the choice showed its default: it takes it',
    async (path) => {
      const { c, effects } = await setup(path);
      const r = await call(c, 'announce');
      const sent = c.seen[0] as { requestedSchema: { properties: Record<string, { default?: unknown }> } };
      expect(sent.requestedSchema.properties.notify?.default).toBe('yes');
      expect(r.status).toBe('done');
      expect(effects).toEqual([{ ticket: 'REL-1001', notify: true }]);
    },
  );
});
