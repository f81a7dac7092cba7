/**
 * The audit trail's default redaction keeps what the form offered (a select's option, a boolean)
 * and masks what a person typed. Text given where a choice was expected (an invalid answer from a
 * broken or hostile client) is typed text: masked, although the answer itself is refused. Real SDK
 * client and server on an in-memory pair.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Connected, call, connect } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit } from './kit.js';

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
});
