/**
 * The audit trail's default redaction keeps what the form offered (a select's option, a boolean)
 * and masks what a person typed. Text given where a choice was expected (an invalid answer from a
 * broken or hostile client) is typed text: masked, although the answer itself is refused. Real SDK
 * client and server on an in-memory pair.
 */
import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Connected, call, connect } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe('default audit redaction with answers outside the form', () => {
  it('does not write free text given for a select field to the trail', async () => {
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e) });
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(createStore())),
      { script: [{ action: 'accept', content: { env: 'my bank PIN is 4321, password hunter2' } }] },
    );
    const result = await call(open, 'deploy', { service: 'order-service' });
    expect(result.status).toBe('invalid');
    const trail = JSON.stringify(events);
    expect(trail).not.toContain('hunter2');
  });

  it('does not write free text given for a boolean field to the trail', async () => {
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e) });
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(createStore())),
      { script: [{ action: 'accept', content: { confirmed: 'hunter2', ticket: 'REL-1001' } }] },
    );
    const result = await call(open, 'deploy', { service: 'order-service', env: 'prod' });
    expect(result.status).toBe('invalid');
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('keeps the options and booleans the form offered, masks the typed text beside them', async () => {
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e) });
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(createStore())),
      { script: [{ action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } }] },
    );
    await call(open, 'deploy', { service: 'order-service', env: 'prod' });
    const response = events.find((e) => e.type === 'response');
    expect(response).toMatchObject({ content: { confirmed: true, ticket: '[redacted: 8 chars]' } });
  });

  it("does not write typed text to the trail through a check's message that quotes it", async () => {
    // The fixture's check says "Ticket <ticket> is not an approved release ticket": the response
    // record masked the ticket, the validation record kept it in that sentence.
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e) });
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(createStore())),
      {
        script: [
          { action: 'accept', content: { env: 'prod' } },
          { action: 'accept', content: { confirmed: true, ticket: 'hunter2-my-password' } },
        ],
      },
    );
    const result = await call(open, 'deploy', { service: 'order-service' });
    expect(result.status).toBe('invalid');
    const validation = events.find((e) => e.type === 'validation' && !e.ok);
    expect(validation).toMatchObject({
      issues: [{ field: 'ticket', message: expect.stringContaining('Ticket [redacted: 19 chars] is not') }],
    });
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('masks a short value only where it is quoted: other words keep their letters', async () => {
    const events: AuditEvent[] = [];
    const kit = createElicitkit({ audit: (e) => void events.push(e) });
    const nameForm = form({ name: field.string({ title: 'Name', minLength: 1 }) });
    const register = defineTool({
      name: 'register',
      description: 'Registers a name.',
      forms: { name: nameForm },
      async run(_args, { ask }) {
        const answer = await ask('name', {
          message: 'Which name should the account have?',
          check: (v) => [{ field: 'name', message: `Name "${v.name}" is taken; Nina, try another.` }],
        });
        return answer.action === 'accept' ? done('Registered.') : answer.result();
      },
    });
    open = await connect(
      'memory-2025-11-25',
      () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [register]),
      {
        script: [{ action: 'accept', content: { name: 'Ni' } }],
      },
    );
    await call(open, 'register', {});
    const validation = events.find((e) => e.type === 'validation' && !e.ok);
    expect(validation).toMatchObject({
      issues: [{ message: 'Name "[redacted: 2 chars]" is taken; Nina, try another.' }],
    });
  });
});

/** A check that quotes the typed name reshaped, as `shape` does, beside a table name of its own. */
async function validationOf(typed: string, shape: (v: string) => string): Promise<string> {
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e) });
  const nameForm = form({ name: field.string({ title: 'Table name', minLength: 1 }) });
  const confirm = defineTool({
    name: 'confirm',
    description: 'Asks for a table name.',
    forms: { name: nameForm },
    async run(_args, { ask }) {
      const answer = await ask('name', {
        message: 'Type the table name to confirm.',
        check: (v) => [{ field: 'name', message: `"${shape(v.name)}" is not order_items_2026.` }],
      });
      return answer.action === 'accept' ? done('Done.') : answer.result();
    },
  });
  open = await connect('memory-2025-11-25', () => kit.createServer({ name: 'fixture', version: '1.0.0' }, [confirm]), {
    script: [{ action: 'accept', content: { name: typed } }],
  });
  await call(open, 'confirm', {});
  const validation = events.find((e) => e.type === 'validation' && !e.ok);
  if (validation?.type !== 'validation') throw new Error('no validation record');
  return validation.issues.map((i) => i.message).join('\n');
}

describe("typed text a check's message quotes reshaped", () => {
  const cases: [string, string, (v: string) => string][] = [
    [
      'cut short, its start and end kept',
      `SecretPlan${'q'.repeat(90)}Tail42`,
      (v) => `${v.slice(0, 30)} … ${v.slice(-12)}`,
    ],
    ['its runs of spaces and line breaks folded', 'my  secret\r\n\tplan here', (v) => v.replace(/\s+/g, ' ')],
    [
      'control and invisible characters shown as U+FFFD',
      'secret\u200bplan\u202eword',
      (v) => v.replace(/[\u200b\u202e]/g, '\uFFFD'),
    ],
    ['in upper case', 'Secret Plan Word', (v) => v.toUpperCase()],
    ['trimmed', '   secretplanword   ', (v) => v.trim()],
    ['a short value in another case', 'Abcd', (v) => v.toLowerCase()],
  ];
  for (const [how, typed, shape] of cases) {
    it(`is masked when ${how}`, async () => {
      const message = await validationOf(typed, shape);
      expect(message).toContain('[redacted: ');
      for (const word of ['secret', 'plan', 'tail42', 'abcd']) expect(message.toLowerCase()).not.toContain(word);
      // What the check said of its own is kept: the table it expected.
      expect(message).toContain('is not order_items_2026.');
    });
  }

  it('masks only what came from the value: a run of it inside the check’s own words, no more', async () => {
    // "items_" is six characters of the typed value found in the table name the check names.
    const message = await validationOf('items_archive', (v) => v);
    expect(message).toBe('"[redacted: 13 chars]" is not order_[redacted: 6 chars]2026.');
  });
});
