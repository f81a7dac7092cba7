/**
 * A tool whose form is a zod schema, over the real SDK on each revision: the question travels as
 * the restricted schema, the library's refinements judge the answer, and the handler gets the
 * library's output.
 */
import { form } from '@elicitkit/form';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type Connected, call, connect, type PathName, type Step } from '../test/harness.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

const release = form(
  z.object({
    env: z
      .union([z.literal('staging').meta({ title: 'Staging' }), z.literal('prod').meta({ title: 'Production' })])
      .meta({
        title: 'Environment',
      }),
    ticket: z
      .string()
      .min(4)
      .refine((t) => t.startsWith('REL-'), 'Give a release ticket, like REL-1001')
      .meta({ title: 'Release ticket' }),
    owner: z
      .email()
      .transform((e) => e.toLowerCase())
      .meta({ title: 'Owner' }),
    notify: z.boolean().default(true).meta({ title: 'Notify the team' }),
  }),
);

const released: unknown[] = [];

const tool = defineTool({
  name: 'release',
  description: 'Release a service, asking for the environment, a ticket and an owner.',
  forms: { release },
  async run(_args, ctx) {
    const answer = await ctx.ask('release', { message: 'Where does this release go, and under which ticket?' });
    if (answer.action !== 'accept') return answer.result();
    expectTypeOf(answer.value).toEqualTypeOf<{
      env: 'staging' | 'prod';
      ticket: string;
      owner: string;
      notify: boolean;
    }>();
    released.push(answer.value);
    return done(`Released to ${answer.value.env} under ${answer.value.ticket}, owned by ${answer.value.owner}.`);
  },
});

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
  released.length = 0;
});

async function setup(path: PathName, script: Step[]): Promise<Connected> {
  const kit = createElicitkit();
  open = await connect(path, () => kit.createServer({ name: 'standard', version: '1.0.0' }, [tool]), { script });
  return open;
}

describe.each<PathName>(['memory-2025-11-25', 'memory-2025-06-18', 'http-2026-07-28'])('a zod form over %s', (path) => {
  it('asks with the restricted schema and hands over the library’s output', async () => {
    const c = await setup(path, [
      { action: 'accept', content: { env: 'prod', ticket: 'REL-1001', owner: 'Ada@Example.com' } },
    ]);
    const r = await call(c, 'release');
    expect(r.status).toBe('done');
    expect(r.text).toBe('Released to prod under REL-1001, owned by ada@example.com.');
    expect(released).toEqual([{ env: 'prod', ticket: 'REL-1001', owner: 'ada@example.com', notify: true }]);
    const schema = (c.seen[0] as { requestedSchema: { properties: Record<string, Record<string, unknown>> } })
      .requestedSchema;
    expect(schema.properties.owner).toEqual({ type: 'string', title: 'Owner', format: 'email' });
    expect(schema.properties.ticket).toEqual({ type: 'string', title: 'Release ticket', minLength: 4 });
    if (path === 'memory-2025-06-18')
      expect(schema.properties.env).toMatchObject({ enum: ['staging', 'prod'], enumNames: ['Staging', 'Production'] });
    else expect(schema.properties.env).toHaveProperty('oneOf');
  });

  it('a refinement the answer fails is the invalid outcome, in the person’s words, and nothing is done', async () => {
    const c = await setup(path, [{ action: 'accept', content: { env: 'staging', ticket: 'JIRA-7', owner: 'a@b.co' } }]);
    const r = await call(c, 'release');
    expect(r.status).toBe('invalid');
    expect(r.text).toContain('"Release ticket": Give a release ticket, like REL-1001');
    expect(released).toEqual([]);
  });
});
