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
