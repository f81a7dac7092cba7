import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { EXIT } from './usage.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

const saved = { ...process.env };
afterEach(() => {
  for (const key of ['ELICITKIT_DATA', 'ELICITKIT_REDIS_URL', 'ELICITKIT_STATE_SECRET']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe('serve --redis: the options replicas need, refused clearly when wrong', () => {
  it('refuses --redis without a shared key: no --data, no ELICITKIT_STATE_SECRET, no secret file', async () => {
    delete process.env.ELICITKIT_DATA;
    delete process.env.ELICITKIT_STATE_SECRET;
    const { io, err } = capture();
    expect(await main(['serve', '--http', '0', '--redis', 'redis://127.0.0.1:6379'], io)).toBe(EXIT.usage);
    expect(err.join('\n')).toContain('replicas need one requestState key');
    // ELICITKIT_REDIS_URL means the same as --redis.
    process.env.ELICITKIT_REDIS_URL = 'redis://127.0.0.1:6379';
    const again = capture();
    expect(await main(['serve', '--http', '0'], again.io)).toBe(EXIT.usage);
    expect(again.err.join('\n')).toContain('replicas need one requestState key');
  });

  it('refuses a state secret shorter than 32 characters, from the environment or a file, and an unreadable file', async () => {
    process.env.ELICITKIT_STATE_SECRET = 'too-short';
    const env = capture();
    expect(await main(['serve', '--http', '0', '--redis', 'redis://127.0.0.1:1'], env.io)).toBe(EXIT.usage);
    expect(env.err.join('\n')).toContain('ELICITKIT_STATE_SECRET: the state secret needs at least 32 characters');
    delete process.env.ELICITKIT_STATE_SECRET;
    const dir = mkdtempSync(join(tmpdir(), 'secret-'));
    try {
      writeFileSync(join(dir, 'key'), 'short\n');
      const file = capture();
      const args = ['serve', '--http', '0', '--redis', 'redis://127.0.0.1:1', '--state-secret-file', join(dir, 'key')];
      expect(await main(args, file.io)).toBe(EXIT.usage);
      expect(file.err.join('\n')).toContain('needs at least 32 characters');
      const missing = capture();
      args[args.length - 1] = join(dir, 'nope');
      expect(await main(args, missing.io)).toBe(EXIT.usage);
      expect(missing.err.join('\n')).toContain('cannot read it (ENOENT)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --redis and --state-secret-file without --http, and a URL that is not redis://', async () => {
    for (const argv of [
      ['serve', '--stdio', '--redis', 'redis://127.0.0.1:6379'],
      ['serve', '--state-secret-file', '/dev/null'],
    ]) {
      const { io, err } = capture();
      expect(await main(argv, io)).toBe(EXIT.usage);
      expect(err.join('\n')).toMatch(/applies to --http/);
    }
    const { io, err } = capture();
    expect(await main(['serve', '--http', '0', '--data', '/tmp/x', '--redis', 'http://example.com'], io)).toBe(
      EXIT.usage,
    );
    expect(err.join('\n')).toContain('--redis needs a redis:// or rediss:// URL');
  });

  it('refuses --relay-listen without --http and --redis, --relay-advertise alone, a bad HOST:PORT, and a wildcard without an address to advertise', async () => {
    const base = ['serve', '--http', '0', '--data', '/tmp/x', '--redis', 'redis://127.0.0.1:1'];
    for (const [argv, message] of [
      [
        ['serve', '--http', '0', '--data', '/tmp/x', '--relay-listen', '127.0.0.1:0'],
        '--relay-listen applies to --http with --redis',
      ],
      [['serve', '--stdio', '--relay-listen', '127.0.0.1:0'], '--relay-listen applies to --http with --redis'],
      [[...base, '--relay-advertise', '10.0.0.7:7400'], '--relay-advertise applies to --relay-listen'],
      [[...base, '--relay-listen', '7400'], '--relay-listen needs HOST:PORT'],
      [[...base, '--relay-listen', '127.0.0.1:70000'], 'the port from 0 to 65535, not "127.0.0.1:70000"'],
      [[...base, '--relay-listen', '::1:7400'], '--relay-listen needs HOST:PORT (an IPv6 host in brackets)'],
      [[...base, '--relay-listen', '0.0.0.0:7400'], 'add --relay-advertise HOST:PORT'],
      [[...base, '--relay-listen', '[::]:7400'], 'add --relay-advertise HOST:PORT'],
      [
        [...base, '--relay-listen', '0.0.0.0:7400', '--relay-advertise', '10.0.0.7:0'],
        '--relay-advertise needs HOST:PORT',
      ],
    ] as const) {
      const { io, err } = capture();
      expect(await main([...argv], io), argv.join(' ')).toBe(EXIT.usage);
      expect(err.join('\n'), argv.join(' ')).toContain(message);
    }
  });

  it('fails closed when Redis cannot be reached at start: a clear error, nothing served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'noredis-'));
    try {
      const { io, err, out } = capture();
      const code = await main(
        ['serve', '--http', '0', '--data', dir, '--redis', 'redis://user:hunter2@127.0.0.1:1'],
        io,
      );
      expect(code).toBe(EXIT.toolError);
      expect(err.join('\n')).toMatch(
        /cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1: ECONNREFUSED; nothing was written or reset/,
      );
      expect(err.join('\n')).not.toContain('hunter2');
      expect(out.join('\n')).not.toContain('serving');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
