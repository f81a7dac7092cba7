/**
 * `createHttpHandler` refuses a limit or a duration it cannot keep, naming the option, when it is
 * made — not later, as a cap that is no cap or a timer that fires at once. Over real HTTP, a
 * handler made with the bounds accepted still serves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { onLoopback } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';

const kit = createElicitkit();
const factory = () => kit.createServer({ name: 'options', version: '1' }, []);

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

type Numeric = {
  [K in keyof HttpHandlerOptions]-?: NonNullable<HttpHandlerOptions[K]> extends number ? K : never;
}[keyof HttpHandlerOptions];

/** Each numeric option, and the lowest and highest it takes. */
const OPTIONS: Record<Numeric, { lowest: number; highest: number }> = {
  maxSessions: { lowest: 1, highest: Number.MAX_SAFE_INTEGER },
  maxSessionsPerIdentity: { lowest: 1, highest: Number.MAX_SAFE_INTEGER },
  maxInFlightPerIdentity: { lowest: 1, highest: Number.MAX_SAFE_INTEGER },
  sessionIdleMs: { lowest: 1, highest: Number.MAX_SAFE_INTEGER },
  abandonedSessionMs: { lowest: 0, highest: 2 ** 31 - 1 },
  retryMs: { lowest: 0, highest: 2 ** 31 - 1 },
  keepAliveMs: { lowest: 0, highest: 2 ** 31 - 1 },
};

describe('createHttpHandler options', () => {
  for (const [name, { lowest, highest }] of Object.entries(OPTIONS)) {
    it(`refuses ${name} that is not a whole number from ${lowest} to ${highest}`, () => {
      for (const value of [Number.NaN, Number.POSITIVE_INFINITY, lowest - 1, highest + 1, lowest + 0.5]) {
        expect(() => createHttpHandler(factory, { [name]: value }), `${name}: ${value}`).toThrow(
          new RangeError(`${name} must be a whole number from ${lowest} to ${highest}, not ${String(value)}`),
        );
      }
      expect(() => createHttpHandler(factory, { [name]: '5' as unknown as number })).toThrow(RangeError);
    });
  }

  it('takes each bound, and a handler made with the lowest still serves', async () => {
    for (const [name, { highest }] of Object.entries(OPTIONS)) {
      const handler = createHttpHandler(factory, { [name]: highest });
      await handler.close();
    }
    const lowest = Object.fromEntries(Object.entries(OPTIONS).map(([name, { lowest }]) => [name, lowest]));
    const handler = createHttpHandler(factory, lowest);
    const { url, close } = await onLoopback(handler);
    closing.push(close);
    const opened = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(opened.status).toBe(200);
    await opened.text();
  });
});
