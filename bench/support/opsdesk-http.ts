/** `elicitkit serve --http 0` (the built CLI) in a child process, as a user starts it. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ServedOpsdesk {
  url: string;
  tokens: Record<string, string>;
  child: ChildProcess;
  /** CPU time (user + system) the server process has used so far, ms (Linux /proc). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** CPU time (user + system) process `pid` has used so far, ms (Linux /proc). */
export function cpuMsOf(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat: utime, stime in clock ticks (100 per second).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * `waitFor`: `tokens` (the first start of a data directory prints every user's token: wait for
 * them) or `serving` (a directory whose tokens were issued beforehand prints none).
 * `cli`: another build's entry point (bench/http-builds.ts seeds with its oldest build, which newer
 * ones migrate). BENCH_SERVE_CLI (e.g. `apps/cli/dist/b-before/cli.js`) sets the default, so a
 * bench such as burst.ts can be run on an older build for a before/after.
 */
export async function serveOpsdesk(
  dataDir: string,
  extra: string[] = [],
  cli = process.env.BENCH_SERVE_CLI
    ? resolve(root, process.env.BENCH_SERVE_CLI)
    : join(root, 'apps/cli/bin/elicitkit.js'),
  waitFor: 'tokens' | 'serving' = 'tokens',
): Promise<ServedOpsdesk> {
  const child = spawn(
    process.execPath,
    [
      // BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the server.
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      cli,
      'serve',
      '--http',
      '0',
      '--data',
      dataDir,
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
      if (waitFor === 'tokens' ? /bob\s+ek_\S+\n/.test(out) : /serving \S+.*\n/.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  const url = /serving (\S+)/.exec(out)?.[1] ?? '';
  const tokens = Object.fromEntries([...out.matchAll(/^\s+(\w+)\s+(ek_\S+)$/gm)].map((m) => [m[1], m[2]]));
  return {
    url,
    tokens,
    child,
    cpuMs: () => cpuMsOf(child.pid ?? 0),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
