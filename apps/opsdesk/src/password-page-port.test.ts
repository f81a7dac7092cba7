/**
 * The password page under stdio serving: opened only when a password question needs it, on the
 * port `--page-port` / ELICITKIT_PAGE_PORT pins; a port in use fails that one call clearly.
 * opsdesk runs as a real child process (`elicitkit serve --stdio`). What the page answers there is
 * in `web/page-route.test.ts`, with `serve --http`'s.
 */
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool } from '../../../test/support/mcp.js';
import { freePort } from '../../../test/support/service.js';
import { type Conn, stdioClient, tempDataDir } from '../test/harness.js';

const ACCOUNT = {
  action: 'accept',
  content: { username: 'carol', email: 'carol@example.com', newsletter: false },
} as const;

/** Whether something accepts connections on the port right now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

let open: Conn | undefined;
let data: ReturnType<typeof tempDataDir> | undefined;
afterEach(async () => {
  await open?.close();
  data?.remove();
  open = undefined;
  data = undefined;
});

describe('the password page (stdio)', () => {
  it.each([
    ['--page-port', (port: number) => ({ args: ['--page-port', String(port)] })],
    ['ELICITKIT_PAGE_PORT', (port: number) => ({ env: { ELICITKIT_PAGE_PORT: String(port) } })],
  ])('is not listening until a password question needs it, then on the port %s pins', async (_how, pin) => {
    data = tempDataDir();
    const port = await freePort();
    open = await stdioClient(data.dir, {
      revision: '2025-11-25',
      script: [ACCOUNT, { action: 'decline' }],
      ...pin(port),
    });
    await callTool(open.client, 'list_deployments', {});
    expect(await listening(port)).toBe(false);
    const r = await callTool(open.client, 'register_user', {});
    expect(r.status).toBe('declined');
    expect(String(open.seen[1]?.url)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/register/`));
    expect(await listening(port)).toBe(true);
  });

  it('a pinned port in use fails the password step clearly; the server goes on', async () => {
    data = tempDataDir();
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      open = await stdioClient(data.dir, {
        revision: '2025-11-25',
        script: [ACCOUNT],
        args: ['--page-port', String(port)],
      });
      const r = await callTool(open.client, 'register_user', {});
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`the password page cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
      expect((await callTool(open.client, 'list_deployments', {})).status).toBe('done');
    } finally {
      taken.close();
    }
  });
});
