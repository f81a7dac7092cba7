/**
 * The audit records as a sink receives them, to the byte: which keys, in which order (a sink that
 * writes JSON lines writes them so). CallAudit fills each record in place rather than spreading
 * copies (see audit.ts); this pins that nothing a sink sees changed with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Connected, call, connect, type Step } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit } from './kit.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** The JSON lines one deploy call leaves, its call id and times replaced by fixed words. */
async function records(script: Step[], args: Record<string, unknown> = { service: 'order-service' }) {
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e), now: () => 1_000 });
  open = await connect(
    'memory-2025-11-25',
    () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(createStore())),
    { script },
  );
  await call(open, 'deploy', args);
  return events.map((e) =>
    JSON.stringify(e)
      .replace(/"contextId":"[^"]+"/, '"contextId":"ID"')
      .replace(/"at":\d+/, '"at":"AT"')
      .replace(/"elapsedMs":\d+/, '"elapsedMs":"MS"'),
  );
}

describe('audit records as the sink receives them', () => {
  it('accept: request, response, validation', async () => {
    expect(await records([{ action: 'accept', content: { env: 'staging' } }])).toEqual([
      '{"type":"request","key":"env","revision":"2025-11-25","message":"Which environment should order-service be deployed to?","mode":"form","fields":["env"],"delivered":true,"contextId":"ID","tool":"deploy","at":"AT"}',
      '{"type":"response","key":"env","elapsedMs":"MS","action":"accept","content":{"env":"staging"},"contextId":"ID","tool":"deploy","at":"AT"}',
      '{"type":"validation","key":"env","ok":true,"issues":[],"contextId":"ID","tool":"deploy","at":"AT"}',
    ]);
  });

  it('decline: a response without content, no validation', async () => {
    expect(await records([{ action: 'decline' }])).toEqual([
      '{"type":"request","key":"env","revision":"2025-11-25","message":"Which environment should order-service be deployed to?","mode":"form","fields":["env"],"delivered":true,"contextId":"ID","tool":"deploy","at":"AT"}',
      '{"type":"response","key":"env","elapsedMs":"MS","action":"decline","contextId":"ID","tool":"deploy","at":"AT"}',
    ]);
  });

  it('a failed check: the validation carries its issues', async () => {
    const lines = await records(
      [
        { action: 'accept', content: { confirmed: false, ticket: 'REL-0000' } },
        { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } },
      ],
      { service: 'order-service', env: 'prod' },
    );
    expect(lines[2]).toBe(
      '{"type":"validation","key":"prod","ok":false,"issues":[{"field":"confirmed","code":"custom","message":"Production deploys need the confirmation ticked."},{"field":"ticket","code":"custom","message":"Ticket [redacted: 8 chars] is not an approved release ticket for order-service."}],"contextId":"ID","tool":"deploy","at":"AT"}',
    );
  });
});
