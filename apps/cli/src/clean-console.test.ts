import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cleanConsole } from './clean-console.js';

/** What would drive a terminal: C0 controls but the line break, DEL and C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const DRIVES_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const NAME = 'x\u001b]0;PWNED-TITLE\u0007\u001b[2J\u001b[31mRED\u001b[0m\u202eevil';

describe('the console every command logs through', () => {
  it('writes what a library logs without control sequences, line breaks kept, in order', async () => {
    const sink = new PassThrough();
    const written: string[] = [];
    sink.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
    const { console, flushed } = cleanConsole(sink);
    // The SDK's own warning, as it quotes a tool's name (2026-07-28 over HTTP).
    console.warn(`[mcp-sdk] excluding tool '${NAME}' from tools/list: invalid x-mcp-header declaration`);
    console.error('first line\nsecond line', { name: NAME });
    console.debug('%s', NAME);
    await flushed();
    // Once the filter is there, a line is written as it is logged.
    console.log('last');
    const text = written.join('');
    expect(text).not.toMatch(DRIVES_TERMINAL);
    expect(text).toContain("[mcp-sdk] excluding tool 'x]0;PWNED-TITLE[2J[31mRED[0mevil' from tools/list");
    expect(text).toContain('first line\nsecond line');
    expect(text.indexOf('[mcp-sdk]')).toBeLessThan(text.indexOf('first line'));
    expect(text.endsWith('last\n')).toBe(true);
  });
});
