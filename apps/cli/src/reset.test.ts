import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { run as statement } from '../../opsdesk/src/db/query.js';
import { createOpsdesk } from '../../opsdesk/src/opsdesk.js';
import { CLI, count, nodeArgs, tempDataDir } from '../../opsdesk/test/harness.js';
import { runCli as run } from '../test/run-cli.js';

/** A data directory whose demo has been damaged: the shop emptied, a deployment added. */
async function damaged() {
  const data = tempDataDir();
  const opsdesk = await createOpsdesk({ dataDir: data.dir, locale: 'en', identify: () => 'alice' });
  const shop = new BetterSqlite3(join(data.dir, 'shop.db'));
  shop.exec('DELETE FROM order_items');
  shop.close();
  await opsdesk.store.run(
    statement(
      "INSERT INTO deployments (service, env, version, deployed_by, created_at) VALUES ('search-service', 'dev', 'v1', 'bob', 'x')",
    ),
  );
  await opsdesk.close();
  return data;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Runs the CLI inside a real pseudo-terminal (util-linux `script`), typing `answer` at the prompt. */
async function inTerminal(args: string[], answer: string) {
  const command = [process.execPath, ...nodeArgs(CLI, ...args)].map((a) => `'${a.replaceAll("'", "'\\''")}'`);
  const child = spawn('script', ['-qec', command.join(' '), '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let screen = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      screen += chunk;
      if (screen.includes('[y/N]')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before asking: ${screen}`)));
  });
  child.stdin.write(`${answer}\r`);
  const [code] = await once(child, 'exit');
  return { code: code as number, screen };
}

describe('elicitkit reset', () => {
  it('refuses without a terminal and without --yes, saying how, and changes nothing', async () => {
    const data = await damaged();
    const r = await run(['reset', '--data', data.dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('there is no terminal to ask, so pass --yes');
    expect(count(data.dir, 'order_items')).toBe(0);
    data.remove();
  });

  it('--yes re-seeds the shop and the deployments, and says what it kept', async () => {
    const data = await damaged();
    const r = await run(['reset', '--data', data.dir, '--yes']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(
      'kept: users and their permissions, bearer tokens, pending registrations, the claims of calls that acted (a replay still acts once), the audit trail',
    );
    expect(count(data.dir, 'order_items')).toBeGreaterThan(2000);
    expect(count(data.dir, 'deployments')).toBe(6);
    data.remove();
  });

  it('in a terminal, asks y/N: anything but yes keeps the data (exit 3)', async () => {
    const data = await damaged();
    const r = await inTerminal(['reset', '--data', data.dir], 'n');
    expect(r.screen).toContain(`Reset the opsdesk demo in ${data.dir}?`);
    expect(r.code).toBe(3);
    expect(count(data.dir, 'order_items')).toBe(0);
    const empty = await inTerminal(['reset', '--data', data.dir], '');
    expect(empty.code).toBe(3);
    expect(count(data.dir, 'order_items')).toBe(0);
    data.remove();
  }, 60_000);

  it('in a terminal, y resets', async () => {
    const data = await damaged();
    const r = await inTerminal(['reset', '--data', data.dir], 'y');
    expect(r.code).toBe(0);
    expect(count(data.dir, 'order_items')).toBeGreaterThan(2000);
    data.remove();
  }, 60_000);

  it('serve --stdio --reset needs --yes (stdin is the wire); serve --http --reset --yes resets, then serves', async () => {
    const data = await damaged();
    const r = await run(['serve', '--stdio', '--reset', '--data', data.dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('serve --stdio --reset needs --yes');
    const child = spawn(
      process.execPath,
      nodeArgs(CLI, 'serve', '--http', '0', '--reset', '--yes', '--data', data.dir),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: string) => {
        out += c;
        if (out.includes('serving')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    expect(err).toContain('opsdesk demo reset in');
    expect(count(data.dir, 'order_items')).toBeGreaterThan(2000);
    child.kill('SIGTERM');
    await once(child, 'exit');
    data.remove();
  }, 60_000);
});
