/**
 * A `--header` value holding a character past U+00FF (`Bearer sécrét€key`, a token pasted with a
 * typographic quote) is a usage error naming the header, for every command, never echoing the
 * value. Was: `tools`, `call` and `doctor` took it, fetch refused to send it, and the command
 * exited 1 with 'could not connect to …: Cannot convert argument to a ByteString because the
 * character at index 13 has a value of 8364' — read as a server that cannot be reached. The CLI's
 * `main`, as the shell runs it, against a loopback port nothing listens on.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../test/support/service.js';
import { runCli as run } from '../test/run-cli.js';

describe('--header with a character no header can carry', () => {
  it('tools, call and doctor: a usage error naming the header, the value not echoed', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const header = ['--header', 'Authorization: Bearer sécrét€key'];
    for (const args of [
      ['tools', url, ...header],
      ['call', url, 'ping', ...header],
      ['doctor', url, '--yes', ...header],
    ]) {
      const r = await run(args);
      expect(r.code, args[0]).toBe(2);
      expect(r.err).toContain('--header Authorization');
      expect(r.err).not.toContain('could not connect');
      expect(r.err).not.toContain('€key');
    }
  }, 30_000);

  it('Latin-1 text is still sent as given (é is one byte)', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const r = await run(['tools', url, '--header', 'X-Team: équipe']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('could not connect');
  }, 30_000);
});
