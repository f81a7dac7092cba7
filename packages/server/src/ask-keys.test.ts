import { field, form } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { type Connected, call, connect, type PathName } from '../test/harness.js';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

// Ask keys may come from data (a row's name, a file's path), so a key that is also the name of an
// Object.prototype member must be a key like any other on every path: asked once, answered once,
// its answer its own.
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const PATHS: PathName[] = ['memory-2025-11-25', 'memory-2025-06-18', 'http-2026-07-28'];

const note = form({ text: field.string({ title: 'Text' }) });
const tool = defineTool({
  name: 'keys',
  description: 'asks once per key',
  maxAsks: KEYS.length,
  async run(_args, { ask }) {
    const got: string[] = [];
    for (const key of KEYS) {
      const answer = await ask(key, { message: `key ${key}`, form: note });
      if (answer.action !== 'accept') return answer.result();
      got.push(`${key}=${answer.value.text}`);
    }
    return done(got.join(' '));
  },
});

let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe.each(PATHS)('ask keys named like Object.prototype members, over %s', (path) => {
  it('each is asked exactly once and keeps its own answer', async () => {
    const kit = createElicitkit();
    const script = KEYS.map((key) => ({ action: 'accept' as const, content: { text: `answer-${key}` } }));
    open = await connect(path, () => kit.createServer({ name: 'keys', version: '1' }, [tool]), { script });
    const r = await call(open, 'keys');
    expect(r.text).toBe(KEYS.map((key) => `${key}=answer-${key}`).join(' '));
    expect(open.seen.map((p) => p.message)).toEqual(KEYS.map((key) => `key ${key}`));
  });
});
