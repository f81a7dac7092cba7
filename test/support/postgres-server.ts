/**
 * A real PostgreSQL for tests: Debian's `postgresql` (15) initialised in a temporary folder and
 * started with `pg_ctl` on a free loopback port, as the `postgres` user when running as root,
 * removed entirely by `stop()`. No mock of Postgres anywhere: a store that passes its suite here
 * passes it against the real thing.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, serviceFor } from './service.js';

const run = promisify(execFile);

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** A fresh database on this server (its URL), for a test that wants its own. */
  database(name: string): Promise<string>;
  /** Stops the server at once and removes its folder. */
  stop(): Promise<void>;
}

const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** Whether PostgreSQL's server programs are installed (`.ci/run` installs Debian's `postgresql`). */
export function postgresAvailable(): boolean {
  return existsSync(join(BIN, 'initdb')) && existsSync(join(BIN, 'pg_ctl')) && existsSync(join(BIN, 'postgres'));
}

/**
 * Whether this run has PostgreSQL for the tests that need it: `npm test` with only Node and npm
 * skips them, saying so once per file; under CI (`CI=true`) they are required, and a missing
 * server fails the run instead of skipping.
 *
 * @example
 * describe.skipIf(!withPostgres('claims/postgres.test.ts'))('postgres claim store', () => { … });
 */
export function withPostgres(file: string): boolean {
  return serviceFor(file, postgresAvailable(), `PostgreSQL not found in ${BIN}`, 'apt-get install postgresql');
}

/** Root may not run PostgreSQL: its programs then run as the `postgres` user, who owns the folder. */
const asRoot = process.getuid?.() === 0;
let account: { uid: number; gid: number } | undefined;

async function postgresAccount(): Promise<{ uid: number; gid: number } | undefined> {
  if (!asRoot) return undefined;
  if (!account) {
    const uid = (await run('id', ['-u', 'postgres'])).stdout.trim();
    const gid = (await run('id', ['-g', 'postgres'])).stdout.trim();
    account = { uid: Number(uid), gid: Number(gid) };
  }
  return account;
}

const ENV = { ...process.env, LC_ALL: 'C' };

async function exec(program: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(join(BIN, program), args, { env: ENV, ...(await postgresAccount()) });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${program} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/**
 * Starts a throw-away PostgreSQL: trust authentication on loopback only, no Unix socket outside
 * its own folder, set up to keep what it acknowledges (the claim store refuses a server that does
 * not), its files in memory unless `durable` (a test kills replicas, never the machine);
 * `forgetful` turns fsync, synchronous_commit and full_page_writes off.
 * Throws with the server's own output when it does not come up.
 *
 * @example
 * const pg = await startPostgres();
 * try { const pool = new Pool({ connectionString: pg.url }); … } finally { await pg.stop(); }
 */
export async function startPostgres(options: { durable?: boolean; forgetful?: boolean } = {}): Promise<TestPostgres> {
  if (!postgresAvailable()) throw new Error(`PostgreSQL not found in ${BIN} (apt-get install -y postgresql)`);
  const dir = mkdtempSync(join(options.durable ? tmpdir() : fastFolder(), 'elicitkit-pg-'));
  const data = join(dir, 'data');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const owner = await postgresAccount();
    if (owner) chownSync(dir, owner.uid, owner.gid);
    await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  } catch (error) {
    remove();
    throw error;
  }
  const settings = [
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    ...(options.forgetful ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ];
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const started = await launch(data, port, settings);
    if ('failed' in started) {
      if (/could not bind|already in use/i.test(started.failed)) continue; // the port was taken meanwhile
      remove();
      throw new Error(`postgres did not start:\n${started.failed}`);
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url,
      port,
      async database(name) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a plain database name`);
        await exec('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', `CREATE DATABASE ${name}`]);
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      async stop() {
        await started.stop();
        remove();
      },
    };
  }
  remove();
  throw new Error('postgres: no free port after 5 tries');
}

/**
 * Where a server that need not survive the machine keeps its files: memory (`/dev/shm`), where
 * fsync costs nothing, when it has a gigabyte free; else the temporary folder. Its settings stay
 * those of a durable server, which the claim store checks for (`forgetful` turns them off).
 */
function fastFolder(): string {
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.bavail * shm.bsize >= 2 ** 30) return '/dev/shm';
  } catch {
    // No /dev/shm here.
  }
  return tmpdir();
}

/** The server in the foreground (a child of this process, so it cannot outlive a crashed test run by much): ready once it accepts connections. */
async function launch(
  data: string,
  port: number,
  settings: string[],
): Promise<{ stop(): Promise<void> } | { failed: string }> {
  const argv = ['-D', data, '-p', String(port), ...settings.flatMap((s) => s.split(' '))];
  const child: ChildProcess = spawn(join(BIN, 'postgres'), argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: ENV,
    ...(await postgresAccount()),
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    // SIGQUIT: immediate shutdown (the folder is removed right after; nothing to keep).
    if (child.exitCode === null) child.kill('SIGQUIT');
    const killed = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killed);
  };
  for (let i = 0; i < 200 && child.exitCode === null; i++) {
    if (/ready to accept connections/.test(output)) return { stop };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  return { failed: output };
}
