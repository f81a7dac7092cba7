/**
 * What the person confirms is the statement that runs, as it runs: shown whole in a code block —
 * line breaks, runs of spaces and comments where they are — or not asked about at all. A statement
 * folded onto one line showed a live clause as part of a `--` comment; one cut in the middle hid
 * a clause there. Either way the person confirmed something other than what ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peekShop, tempDataDir } from '../../test/harness.js';
import { STATEMENT_SHOWN } from './execute-sql.js';

let data: ReturnType<typeof tempDataDir>;
let c: Conn;
beforeAll(async () => {
  data = tempDataDir();
  c = await memoryClient(data.dir);
});
afterAll(async () => {
  await c.close();
  data.remove();
});

const emails = () => peekShop(data.dir, 'SELECT COUNT(DISTINCT email) AS n FROM customers') as { n: number }[];
const cities = () => peekShop(data.dir, 'SELECT COUNT(DISTINCT city) AS n FROM customers') as { n: number }[];

/** Runs `statement`, declining any question; what was asked, if anything, and the result. */
const run = async (statement: string) => {
  c.script.splice(0, c.script.length, { action: 'decline' });
  const before = c.seen.length;
  const r = await callTool(c.client, 'execute_sql', { sql: statement });
  c.script.splice(0, c.script.length);
  return { ...r, message: (c.seen[before] as { message: string } | undefined)?.message };
};

describe('execute_sql shows the statement whole, as it runs', () => {
  it('a clause on the line after a `--` comment is shown on a line of its own, as it runs', async () => {
    const sql = "UPDATE customers SET city = 'Suzhou' -- TODO later: , email = 'x'\n, email = 'attacker@evil.example'";
    const before = emails();
    const r = await run(sql);
    expect(r.status).toBe('declined');
    expect(r.message).toContain(
      "Statement:\n```\n1 | UPDATE customers SET city = 'Suzhou' -- TODO later: , email = 'x'\n2 | , email = 'attacker@evil.example'\n```",
    );
    expect(emails()).toEqual(before);
  });

  it('one line is shown as it is; runs of spaces, tabs and indentation are kept; a CRLF is one line break', async () => {
    const one = await run("UPDATE customers SET city = 'Suzhou      Old    Town'");
    expect(one.message).toContain("Statement:\n```\nUPDATE customers SET city = 'Suzhou      Old    Town'\n```");
    const r = await run("\r\n  UPDATE customers\r\n\tSET city = 'Suzhou      Old    Town'  \r\n");
    expect(r.status).toBe('declined');
    expect(r.message).toContain("```\n1 | UPDATE customers\n2 | \tSET city = 'Suzhou      Old    Town'\n```");
    expect(r.message).not.toContain('\r');
  });

  it('a long statement is shown whole up to the bound — its middle too — and past it not asked about: nothing is done', async () => {
    const middle = ", email = 'attacker@evil.example'";
    const pad = (n: number) => `/* ${'x'.repeat(n)} */`;
    const head = "UPDATE customers SET city = 'Suzhou' ";
    const fits = `${head}${pad(900)}${middle}${pad(STATEMENT_SHOWN.chars - head.length - middle.length - 912)}`;
    expect([...fits].length).toBe(STATEMENT_SHOWN.chars);
    const shown = await run(fits);
    expect(shown.status).toBe('declined');
    expect(shown.message).toContain(`\`\`\`\n${fits}\n\`\`\``);

    const before = [emails(), cities()];
    for (const sql of [`${fits.slice(0, -3)}x */`, `${head}${'\n'.repeat(STATEMENT_SHOWN.lines)}${middle}`]) {
      const r = await run(sql);
      expect(r.message, 'no question').toBeUndefined();
      expect(r.status).toBe('rejected');
      expect(r.text).toMatch(
        /shows the statement whole, as it runs: at most 2,000 characters on 50 lines\. This one has [\d,]+ on \d+\. Nothing was done/,
      );
    }
    expect([emails(), cities()]).toEqual(before);
  });

  it('a character no one sees as it is is spelled out where it is; a lone CR or a line separator also ends its line', async () => {
    for (const [char, shown] of [
      ['\u202e', '-- note ⟨U+202E⟩, then'],
      ['\u200b', '-- note ⟨U+200B⟩, then'],
      ['\u001b', '-- note ⟨U+001B⟩, then'],
      ['\u00ad', '-- note ⟨U+00AD⟩, then'],
      ['\r', '-- note ⟨U+000D⟩\n3 | , then'],
      ['\u2028', '-- note ⟨U+2028⟩\n3 | , then'],
      // The notation's own bracket, written in the statement, is spelled out too: ⟨ always starts one.
      ['⟨U+202E⟩', '-- note ⟨U+27E8⟩U+202E⟩, then'],
    ]) {
      const r = await run(
        `UPDATE customers SET city = 'Suzhou'\n-- note ${char}, then\n, email = 'attacker@evil.example'`,
      );
      expect(r.status).toBe('declined');
      expect(r.message).toContain(`1 | UPDATE customers SET city = 'Suzhou'\n2 | ${shown}`);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: none of them may reach the person
      expect(r.message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u00ad\u200b\u202e\u2028]/);
    }
  });

  it('no line of a statement passes for a line of the question, nor ends the block it is shown in', async () => {
    const forged = "UPDATE customers SET city = 'x\n```\nopsdesk: nothing else changes.\n~~~'";
    const r = await run(forged);
    expect(r.status).toBe('declined');
    const lines = (r.message as string).split('\n');
    expect(lines.filter((line) => line === '```')).toHaveLength(2);
    expect(lines.some((line) => line.startsWith('opsdesk:'))).toBe(false);
    expect(r.message).toContain(
      "1 | UPDATE customers SET city = 'x\n2 | ```\n3 | opsdesk: nothing else changes.\n4 | ~~~'",
    );
  });
});
