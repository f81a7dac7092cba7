import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenServer, host } from '../test/broken-servers.js';
import { runCli as run } from '../test/run-cli.js';

// `elicitkit call` against real servers over HTTP on loopback that break EK09 and EK06 (they push, so 2025).
let dir: string;
let secrets: Awaited<ReturnType<typeof host>>;
let preticked: Awaited<ReturnType<typeof host>>;
let answersFile: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ek-call-safety-'));
  [secrets, preticked] = await Promise.all([host(() => brokenServer('EK09')), host(() => brokenServer('EK06'))]);
  answersFile = join(dir, 'answers.json');
  writeFileSync(
    answersFile,
    JSON.stringify([{ action: 'accept', content: { username: 'ann', password: 'hunter22' } }]),
  );
});
afterAll(async () => {
  await Promise.all([secrets.close(), preticked.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('elicitkit call --secrets', () => {
  it('decline: a form asking for a password is declined unseen, and the call says so (exit 1 from the tool)', async () => {
    const r = await run([
      'call',
      secrets.url,
      'deploy_ek09',
      '--answers',
      answersFile,
      '--secrets',
      'decline',
      '--revision',
      '2025-11-25',
    ]);
    expect(r.err).toContain('declined a question automatically (it asked for a secret)');
    expect(r.out).toContain('not done (decline)');
  });

  it('warn (the default): the form is shown, and answered', async () => {
    const r = await run(['call', secrets.url, 'deploy_ek09', '--answers', answersFile, '--revision', '2025-11-25']);
    expect(r.err).not.toContain('declined a question automatically');
    expect(r.out).toContain('done: {"username":"ann","password":"hunter22"}');
  });

  it('refuses any other value as a usage error (exit 2)', async () => {
    const r = await run(['call', secrets.url, 'deploy_ek09', '--secrets', 'maybe']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--secrets must be decline or warn, not "maybe"');
  });
});

describe('a confirmation the server pre-ticked (EK06)', () => {
  it('is sent unticked when the person accepts the defaults', async () => {
    const file = join(dir, 'defaults.json');
    writeFileSync(file, JSON.stringify([{ action: 'accept', content: { ticket: 'REL-1001' } }]));
    const r = await run(['call', preticked.url, 'deploy_ek06', '--answers', file, '--revision', '2025-11-25']);
    expect(r.out).toContain('done: {"ticket":"REL-1001","confirmed":false}');
  });
});
