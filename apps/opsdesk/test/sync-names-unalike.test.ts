/**
 * sync_file promises that a file's name is shown "on one line and whole — what no one sees as it
 * is spelled out, so no two files are asked about alike" (docs/opsdesk.md). `spelledLine` spelled
 * only a fixed list (C0/C1 controls, bidi controls, ZWSP/ZWJ/ZWNJ, word joiner, BOM, soft hyphen),
 * so Unicode tag characters, the Hangul fillers, the combining grapheme joiner, a variation
 * selector and a no-break space passed through raw, and a name in NFD read as its NFC twin: a file
 * planted as `notes/plan.md<U+E0041>` was asked about in exactly the words of `notes/plan.md`, and
 * the person's resolution applied to another file. Now every character not seen as itself is
 * spelled, and the combining marks of a name not in NFC.
 *
 * Real SDK client over loopback HTTP; the question's text as the client receives it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { httpClient, httpOpsdeskForSuite, tokenOf } from './harness.js';

const served = httpOpsdeskForSuite();

function conflictAt(path: string): void {
  for (const side of ['local', 'remote']) {
    const file = join(served.dataDir, 'workspace', side, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${side} edit\n`);
  }
}

/** The first line of the conflict question (it names the file), as the client got it. */
async function askedAbout(path: string): Promise<{ status: string | undefined; firstLine: string }> {
  const c = await httpClient(served.server.url, tokenOf(served.server, 'alice'), { revision: '2025-11-25' });
  try {
    c.script.push({ action: 'decline' });
    const r = await callTool(c.client, 'sync_file', { path });
    return { status: r.status, firstLine: String(c.seen[0]?.message).split('\n')[0] ?? '' };
  } finally {
    await c.close();
  }
}

describe('sync_file: a name with a character nobody sees is never asked about like another', () => {
  it.each([
    ['a tag character', 'notes/plan.md\u{E0041}', '\u{E0041}'],
    ['a Hangul filler', 'notes/plan\u3164.md', '\u3164'],
    ['a combining grapheme joiner', 'notes/pla\u034Fn.md', '\u034F'],
    ['a no-break space', 'notes/release\u00A0plan.md', '\u00A0'],
  ])('%s in the name is spelled out, not shown raw', async (_what, path, hidden) => {
    conflictAt(path);
    const asked = await askedAbout(path);
    expect(asked.status).toBe('declined');
    // Shown raw, the question reads exactly as the one about the name without it.
    expect(asked.firstLine.includes(hidden), `question: ${JSON.stringify(asked.firstLine)}`).toBe(false);
  });

  it('two files whose names differ by a tag character are not asked about in the same words', async () => {
    const plain = 'look/plan.md';
    const planted = `look/plan.md${'\u{E0070}\u{E0077}\u{E006E}'}`;
    conflictAt(plain);
    conflictAt(planted);
    const a = await askedAbout(plain);
    const b = await askedAbout(planted);
    const visible = (s: string) => s.replace(/[\u{E0000}-\u{E007F}]/gu, '');
    expect(visible(b.firstLine), 'the planted file is shown with its name spelled, as a different file').not.toBe(
      visible(a.firstLine),
    );
  });

  it('two files whose names differ only in Unicode normalisation (NFC and NFD) are not asked about in the same words', async () => {
    const composed = 'norm/caf\u00E9.md';
    const decomposed = 'norm/cafe\u0301.md';
    conflictAt(composed);
    conflictAt(decomposed);
    const a = await askedAbout(composed);
    const b = await askedAbout(decomposed);
    expect(a.status).toBe('declined');
    expect(b.status).toBe('declined');
    // Two files, two sync states: a person must be able to tell which one a question is about.
    expect(b.firstLine.normalize('NFC'), 'both questions read "norm/café.md"').not.toBe(a.firstLine.normalize('NFC'));
  });
});
