import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../../test/support/mcp.js';
import { type Conn, memoryClient, peek, tempDataDir } from '../../test/harness.js';

let data: ReturnType<typeof tempDataDir> | undefined;
let conn: Conn | undefined;
afterEach(async () => {
  await conn?.close();
  data?.remove();
});

/**
 * register_user needs a form (the account) and a page (the password, URL mode). On a client that
 * lacked one it ended with the kit's fallback: "Ask the user for these values and call
 * register_user again with them:" — over an empty list (forms only), or over username, email and
 * newsletter (no forms) — for a tool that takes no arguments: each call again ended the same way,
 * the person asked the form again for nothing.
 */
describe('register_user on a client that cannot show a step of registering', () => {
  it.each([
    ['forms only', { elicitation: { form: {} } }, 1, /cannot ask the user on a page \(URL-mode elicitation\)/],
    ['pages only', { elicitation: { url: {} } }, 0, /cannot ask the user in a form/],
  ])(
    '%s: no account, no link left, and the result says why without asking for arguments',
    async (_label, capabilities, asked, why) => {
      data = tempDataDir();
      conn = await memoryClient(data.dir, { user: 'alice', capabilities });
      conn.script.push({ action: 'accept', content: { username: 'zed', email: 'zed@example.com', newsletter: false } });
      const r = await callTool(conn.client, 'register_user');
      expect(r.status).toBe('unsupported');
      expect(r.text).toMatch(why);
      expect(r.text).toMatch(/register_user takes no arguments/);
      expect(r.text).not.toMatch(/again with them/);
      expect(r.structured?.missing).toEqual([]);
      expect(conn.seen).toHaveLength(asked);
      expect(peek(data.dir, 'SELECT COUNT(*) AS n FROM registrations')).toEqual([{ n: 0 }]);
      expect(peek(data.dir, "SELECT COUNT(*) AS n FROM users WHERE username = 'zed'")).toEqual([{ n: 0 }]);
    },
  );
});
