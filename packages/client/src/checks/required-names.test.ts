/**
 * A refused form's message quoted every name `required` lists that is not a field, each whole.
 * Every other part of a form is capped before it is read (500 fields, titles of 200 characters,
 * 65,536 characters of text; `show()` cuts what a problem quotes at 60), but `required` was not:
 * one request listing 100,000 made-up names, or one name of megabytes, made the refusal — the
 * `rejected` event every host prints (`elicitkit call` writes it to stderr whole) and the -32602
 * message — run to megabytes. Now the first five are named, each quoted short, the rest counted,
 * and a refusal names at most 20 problems. Real SDK server and client (2025-11-25, in-memory).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Connection, connect } from '../../test/servers.js';
import type { ElicitationEvent } from '../attach/events.js';
import { attach } from '../attach/index.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import { checkFormRequest } from './form.js';

/** Far more than any refusal needs to say: the longest message a question itself may carry. */
const MOST_SAID = 65_536;

const form = (required: string[]) => ({
  type: 'object',
  properties: { env: { type: 'string', title: 'Environment' } },
  required: ['env', ...required],
});
const MESSAGE = 'Which environment should order-service be deployed to?';
const MANY = Array.from({ length: 100_000 }, (_, i) => `not_a_field_${i}`);
const LONG = ['x'.repeat(2_000_000)];

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('a hostile `required` list cannot make the refusal megabytes long', () => {
  it.each([
    ['100,000 names that are not fields', MANY],
    ['one name of two million characters', LONG],
  ])('checkFormRequest refuses %s in a message of bounded length', (_label, required) => {
    const checked = checkFormRequest({ message: MESSAGE, requestedSchema: form(required) });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.message).toContain('required');
    expect(checked.message.length).toBeLessThan(MOST_SAID);
  });

  it('over the wire: the rejected event and the -32602 the server receives stay bounded', async () => {
    const events: ElicitationEvent[] = [];
    open = await connect('2025-11-25', (client) =>
      attach(client, { renderer: createScriptedRenderer([]), onEvent: (e) => events.push(e) }),
    );
    const received = await open.ask({ mode: 'form', message: MESSAGE, requestedSchema: form(MANY) });
    expect(received).toMatchObject({ error: { code: -32602 } });
    const rejected = events.find((e) => e.type === 'rejected');
    expect(rejected).toBeDefined();
    expect(rejected?.type === 'rejected' ? rejected.message.length : Number.POSITIVE_INFINITY).toBeLessThan(MOST_SAID);
    if ('error' in received) expect(received.error.message.length).toBeLessThan(MOST_SAID);
  }, 60_000);
});
