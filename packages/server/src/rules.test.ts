import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools, type Store } from '../test/fixture-tools.js';
import { type Connected, type ConnectOptions, call, connect, type PathName } from '../test/harness.js';
import type { AuditEvent } from './audit.js';
import { createElicitkit, type ElicitkitOptions } from './kit.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function setup(path: PathName, options: ConnectOptions & { kit?: ElicitkitOptions } = {}) {
  const store: Store = createStore();
  const events: AuditEvent[] = [];
  const kit = createElicitkit({ audit: (e) => void events.push(e), pollMs: 10, ...options.kit });
  const c = await connect(
    path,
    () => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(store)),
    options,
  );
  open = c;
  return { c, store, events };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept' as const, content });

describe.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])('programming errors over %s', (path) => {
  it('a third ask over the budget is a clear error, and the third question is never sent', async () => {
    const s = await setup(path, { script: [accept({ choice: 'a' }), accept({ choice: 'b' })] });
    const r = await call(s.c, 'three_asks');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('three_asks asked 3 questions in one call; the budget is 2');
    expect(s.c.seen).toHaveLength(2);
  });

  it('a re-ask after a decline is refused: one question reaches the person', async () => {
    const s = await setup(path, { script: [{ action: 'decline' }, accept({ choice: 'a' })] });
    const r = await call(s.c, 'reask_after_decline');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('asked "again" after the user declined "first"');
    expect(s.c.seen).toHaveLength(1);
  });

  it('a success result after a cancel is refused (the cancel guard)', async () => {
    const s = await setup(path, { script: [{ action: 'cancel' }] });
    const r = await call(s.c, 'work_after_cancel');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('after the user cancelled "choice"');
    expect(r.status).toBeUndefined();
  });
});

describe.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])('URL mode over %s', (path) => {
  const legacy = path.startsWith('memory');

  it('completes when the person finishes on the page', async () => {
    const s = await setup(path, {
      script: [
        () => {
          // The person opens the page and sets the password there.
          s.store.completed.add('flow-1');
          return { action: 'accept' };
        },
      ],
    });
    const notified: string[] = [];
    s.c.client.setNotificationHandler('notifications/elicitation/complete', (n) => {
      notified.push(n.params.elicitationId);
    });
    const r = await call(s.c, 'register', { flow: 'flow-1' });
    expect(r.status).toBe('done');
    const request = s.c.seen[0] as { mode: string; url: string; elicitationId?: string };
    expect(request).toMatchObject({ mode: 'url', url: 'http://127.0.0.1:7777/password/flow-1' });
    if (legacy) {
      // 2025-11-25: an elicitationId, and the completion notification naming it.
      expect(typeof request.elicitationId).toBe('string');
      await expect.poll(() => notified).toEqual([request.elicitationId]);
    } else {
      // 2026-07-28: no id on the wire; the retried call carries the answer.
      expect(request.elicitationId).toBeUndefined();
    }
  });

  it('is pending when the person consented but did not finish in time', async () => {
    const s = await setup(path, { kit: { urlWaitMs: 50 }, script: [{ action: 'accept' }] });
    const r = await call(s.c, 'register', { flow: 'flow-2' });
    expect(r.status).toBe('pending');
    expect(r.text).toContain('has not finished there yet');
  });

  it('decline is reported as declined', async () => {
    const s = await setup(path, { script: [{ action: 'decline' }] });
    const r = await call(s.c, 'register', { flow: 'flow-3' });
    expect(r.status).toBe('declined');
    // The page by its host: the message is not a field label.
    expect(r.text).toBe(
      'The user declined to open the page on 127.0.0.1:7777, so register did nothing. Do not ask again unless the user brings it up.',
    );
  });
});

describe('audit trail', () => {
  it.each(['memory-2025-11-25', 'http-2026-07-28'] as PathName[])(
    'keeps request, response and validation apart, once each, under one context id (%s)',
    async (path) => {
      const s = await setup(path, {
        script: [accept({ env: 'prod' }), accept({ confirmed: true, ticket: 'REL-1001' })],
        kit: { identify: () => 'alice' },
      });
      await call(s.c, 'deploy', { service: 'order-service' });
      expect(s.events.map((e) => `${e.type}:${e.key}`)).toEqual([
        'request:env',
        'response:env',
        'validation:env',
        'request:prod',
        'response:prod',
        'validation:prod',
      ]);
      expect(new Set(s.events.map((e) => e.contextId)).size).toBe(1);
      expect(s.events.every((e) => e.user === 'alice' && e.tool === 'deploy')).toBe(true);
      const response = s.events.find((e) => e.type === 'response' && e.key === 'prod');
      // Choices and booleans stay readable; typed text is masked.
      expect(response).toMatchObject({ action: 'accept', content: { confirmed: true, ticket: '[redacted: 8 chars]' } });
    },
  );

  it('separate calls get separate context ids', async () => {
    const s = await setup('http-2026-07-28', { script: [accept({ env: 'dev' }), accept({ env: 'dev' })] });
    await call(s.c, 'deploy', { service: 'a' });
    await call(s.c, 'deploy', { service: 'b' });
    expect(new Set(s.events.map((e) => e.contextId)).size).toBe(2);
  });

  it('keeps answers as given when redaction is off', async () => {
    const s = await setup('memory-2025-11-25', {
      script: [accept({ confirmed: true, ticket: 'REL-1001' })],
      kit: { redaction: 'full' },
    });
    await call(s.c, 'deploy', { service: 'order-service', env: 'prod' });
    expect(s.events.find((e) => e.type === 'response')).toMatchObject({ content: { ticket: 'REL-1001' } });
  });

  it('a failing audit sink never breaks the call', async () => {
    const s = await setup('memory-2025-11-25', {
      script: [accept({ env: 'dev' })],
      kit: {
        audit: () => {
          throw new Error('disk full');
        },
      },
    });
    expect((await call(s.c, 'deploy', { service: 'x' })).status).toBe('done');
  });
});
