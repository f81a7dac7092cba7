/**
 * 2026-07-28 over real HTTP on loopback (raw JSON-RPC, well inside the 4 MiB body limit): arguments
 * nested deeply under a key the tool's schema ignores pass the schema; the call's text that binds
 * its sealed state is taken of them as sent. Was: taken recursively, the engine's stack error was
 * what the client got. Now the call is refused as invalid arguments, saying why; nothing is asked
 * or done.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ENVELOPE } from '../../../test/support/modern-wire.js';
import { type Loopback, loopback } from '../test/loopback.js';

let served: Loopback | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('arguments nested deeper than the call text can be taken', () => {
  it('are refused as invalid arguments, saying why, not with the engine stack error', async () => {
    served = await loopback({ authenticated: true });
    const depth = 50_000; // 100 KB of brackets
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"order-service","note":${deep}},"_meta":${JSON.stringify(ENVELOPE)}}}`;
    const response = await fetch(served.url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-method': 'tools/call',
        'mcp-name': 'deploy',
        'mcp-protocol-version': '2026-07-28',
        authorization: 'Bearer alice',
      },
      body,
    });
    const text = await response.text();
    expect(text, 'the client is handed a JavaScript engine error').not.toContain('Maximum call stack size exceeded');
    const parsed = JSON.parse(text) as {
      result?: { structuredContent?: { status?: string } };
      error?: { code: number };
    };
    expect(parsed.result?.structuredContent?.status, text).toBe('invalid');
    expect(text).toContain('nest too deeply to be bound to the answers this call asks for');
    expect(served.store.deployments).toEqual([]);
  });
});
