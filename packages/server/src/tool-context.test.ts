import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore, fixtureTools } from '../test/fixture-tools.js';
import { type Connected, call, connect, type PathName } from '../test/harness.js';
import { createElicitkit } from './kit.js';

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function seen(path: PathName, capabilities?: ClientCapabilities) {
  const kit = createElicitkit();
  open = await connect(path, () => kit.createServer({ name: 'fixture', version: '1' }, fixtureTools(createStore())), {
    ...(capabilities ? { capabilities } : {}),
  });
  return (await call(open, 'client')).structured;
}

describe('what a tool is told about its client: ctx.revision and ctx.can', () => {
  it.each([
    ['memory-2025-11-25', '2025-11-25', { form: true, url: true }],
    ['memory-2025-06-18', '2025-06-18', { form: true, url: false }],
    ['http-2026-07-28', '2026-07-28', { form: true, url: true }],
    ['stdio-2025-11-25', '2025-11-25', { form: true, url: true }],
    ['stdio-2026-07-28', '2026-07-28', { form: true, url: true }],
  ] as const)('over %s: revision %s, the modes the client declared', async (path, revision, can) => {
    expect(await seen(path)).toMatchObject({ revision, can });
  });

  it.each([
    ['memory-2025-11-25', {}, { form: false, url: false }],
    ['memory-2025-11-25', { elicitation: { url: {} } }, { form: false, url: true }],
    ['memory-2025-11-25', { elicitation: { form: {} } }, { form: true, url: false }],
    ['http-2026-07-28', {}, { form: false, url: false }],
    ['http-2026-07-28', { elicitation: { url: {} } }, { form: false, url: true }],
    ['http-2026-07-28', { elicitation: {} }, { form: true, url: false }],
  ] as const)('over %s with capabilities %j: can is %j', async (path, capabilities, can) => {
    expect(await seen(path, capabilities as ClientCapabilities)).toMatchObject({ can });
  });
});
