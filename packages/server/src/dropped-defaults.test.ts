/**
 * A 2025-06-18 client is sent a form without its non-boolean defaults (the revision has none):
 * such a field is asked as required, and an answer that leaves it out is invalid, never filled
 * with the default the person was not shown. Over the real SDK, each revision.
 */
import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connected, call, connect, type PathName } from '../test/harness.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const cleanup = form({
  table: field.string({ title: 'Table to clean up' }),
  scope: field
    .select(
      [
        { value: 'expired', title: 'Expired rows only' },
        { value: 'all', title: 'Every row' },
      ],
      { title: 'Scope', default: 'all' },
    )
    .optional(),
  notify: field.boolean({ title: 'Notify the team', default: true }),
});

const received: unknown[] = [];

const tool = defineTool({
  name: 'cleanup',
  description: 'Clean up a table, asking which rows.',
  forms: { cleanup },
  async run(_args, ctx) {
    const answer = await ctx.ask('cleanup', { message: 'Which rows of which table should be cleaned up?' });
    if (answer.action !== 'accept') return answer.result();
    received.push(answer.value);
    return done(`Cleaned up ${answer.value.table} (${answer.value.scope ?? 'nothing chosen'}).`);
  },
});

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
  received.length = 0;
});

describe('defaults a revision did not show', () => {
  it('2025-06-18: the scope is asked as required; left out, nothing is done; the boolean default is filled', async () => {
    const kit = createElicitkit();
    open = await connect('memory-2025-06-18', () => kit.createServer({ name: 'd', version: '1.0.0' }, [tool]), {
      script: [{ action: 'accept', content: { table: 'sessions' } }],
    });
    const r = await call(open, 'cleanup');
    const sent = (open.seen[0] as { requestedSchema: { properties: Record<string, object>; required?: string[] } })
      .requestedSchema;
    expect(sent.properties.scope).not.toHaveProperty('default');
    expect(sent.required).toEqual(['table', 'notify', 'scope']);
    expect(r.status).toBe('invalid');
    expect(r.structured?.issues).toMatchObject([{ field: 'scope', code: 'required' }]);
    expect(received).toEqual([]);
    await open.close();
    open = await connect('memory-2025-06-18', () => kit.createServer({ name: 'd', version: '1.0.0' }, [tool]), {
      script: [{ action: 'accept', content: { table: 'sessions', scope: 'expired' } }],
    });
    expect((await call(open, 'cleanup')).text).toBe('Cleaned up sessions (expired).');
    expect(received).toEqual([{ table: 'sessions', scope: 'expired', notify: true }]);
  });

  it.each<PathName>(['memory-2025-11-25', 'http-2026-07-28'])(
    '%s: the default was shown, and is filled',
    async (path) => {
      const kit = createElicitkit();
      open = await connect(path, () => kit.createServer({ name: 'd', version: '1.0.0' }, [tool]), {
        script: [{ action: 'accept', content: { table: 'sessions' } }],
      });
      const r = await call(open, 'cleanup');
      expect(r.text).toBe('Cleaned up sessions (all).');
      expect(received).toEqual([{ table: 'sessions', scope: 'all', notify: true }]);
    },
  );
});
