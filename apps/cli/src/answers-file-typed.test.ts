import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../test/run-cli.js';

/**
 * An answers file is JSON a person typed, as `--args` is, and is held to the same (docs/cli.md,
 * Answers files) but for a whole number past ±2^53-1 read exactly, which is the form's to judge as
 * when typed at the terminal: `JSON.parse` read `-0` as 0, `1e400` as null (Infinity), `9007199254740993` as
 * …992, `0.30000000000000000001` as 0.3, kept only the last of a key given twice, and passed on half
 * a character — each a value nobody wrote, sent as the person's answer. Now the file is refused
 * (usage, exit 2) naming where (`$[0].content.ratio`), and nothing is called. End to end through the
 * CLI against a raw-SDK stdio server that records whether its tool ran and what it was answered.
 */
const SERVER = `
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
const form = { type: 'object', properties: { ratio: { type: 'number', title: 'Ratio' }, note: { type: 'string', title: 'Note' }, count: { type: 'integer', title: 'Count' } }, required: ['ratio'] };
const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'scale', inputSchema: { type: 'object', properties: {} } }] }));
server.setRequestHandler('tools/call', async (req, ctx) => {
  const r = await ctx.mcpReq.send({ method: 'elicitation/create', params: { message: 'How far?', requestedSchema: form } }, { timeout: 10000 });
  return { content: [{ type: 'text', text: JSON.stringify(r) }], structuredContent: { status: 'done' } };
});
await server.connect(new StdioServerTransport());
`;
const COMMAND = ['--', process.execPath, '--input-type=module', '-e', SERVER];

const dir = mkdtempSync(join(tmpdir(), 'ek-answers-typed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** An answers file holding `text` exactly as written. */
const file = (text: string) => {
  const path = join(dir, `answers-${files++}.json`);
  writeFileSync(path, text);
  return path;
};
const call = (answers: string) => run(['call', 'scale', '--answers', answers, '--revision', '2025-11-25', ...COMMAND]);

describe('elicitkit call --answers: the file is sent as written, or refused naming where', () => {
  it.each([
    ['negative zero', '{"ratio":-0}', '$[0].content.ratio -0 cannot be sent exactly: JSON has no negative zero'],
    [
      'a number too large for a double',
      '{"ratio":1e400}',
      '$[0].content.ratio 1e400 cannot be sent exactly: it would arrive as null',
    ],
    [
      'a whole number past 2^53',
      '{"ratio":9007199254740993}',
      '$[0].content.ratio 9007199254740993 cannot be sent exactly: it would arrive as 9007199254740992',
    ],
    [
      'a decimal past a double',
      '{"ratio":0.30000000000000000001}',
      '$[0].content.ratio 0.30000000000000000001 cannot be sent exactly: it would arrive as 0.3',
    ],
    ['a key given twice', '{"ratio":1,"ratio":2}', '$[0].content.ratio is given twice'],
    ['half a character', '{"ratio":1,"note":"\\ud800"}', '$[0].content.note holds half of a character'],
  ])(
    '%s: usage error, nothing called',
    async (_label, content, said) => {
      const r = await call(file(`[{"action":"accept","content":${content}}]`));
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(said);
      expect(r.err).toContain('--answers');
      expect(r.out, 'the tool ran').toBe('');
    },
    60_000,
  );

  it('an action given twice is refused rather than the last one taken', async () => {
    const r = await call(file('[{"action":"decline","action":"accept","content":{"ratio":1}}]'));
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('$[0].action is given twice');
  }, 60_000);

  // As the terminal takes it typed into the form: a whole number past ±2^53-1 read exactly is the
  // form's to judge — a number field takes it (the file was refused: "send it as a string").
  it.each([
    ['1e16', '10000000000000000'],
    ['9007199254740992', '9007199254740992'],
    ['-1e21', '-1e+21'],
  ])(
    'a number field answered %s: sent as written',
    async (written, sent) => {
      const r = await call(file(`[{"action":"accept","content":{"ratio":${written}}}]`));
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe(`{"action":"accept","content":{"ratio":${sent}}}`);
    },
    60_000,
  );

  it("a whole-number field answered 9007199254740992: refused in the form's words, the question cancelled", async () => {
    const r = await call(file('[{"action":"accept","content":{"ratio":1,"count":9007199254740992}}]'));
    expect(r.err).toContain('the scripted answer did not fit the form');
    expect(r.err).toContain('"Count" must be at most 9007199254740991 (larger whole numbers cannot be exact)');
    expect(r.out, 'the number reached the server').toBe('{"action":"cancel"}');
  }, 60_000);

  it('1.0 is the number 1, and is sent', async () => {
    const r = await call(file('[{"action":"accept","content":{"ratio":1.0}}]'));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('{"action":"accept","content":{"ratio":1}}');
  }, 60_000);
});
