/** What the test helpers that start a real service (Redis, PostgreSQL) share. */
import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now, for a server a test starts on it (Redis, a
 * replica's direct port, a proxy's upstream). Taken below the kernel's ephemeral range (32768 and
 * up on Linux), where neither an outgoing connection's source port nor a `listen(0)` lands: a
 * port `listen(0)` picked and freed could be taken, before the server meant for it listened, by a
 * connection opened meanwhile — the test's own Redis client, say — and the server failed with
 * EADDRINUSE. Each test worker hands out ports from a stripe of its own (by `VITEST_POOL_ID`, else
 * the pid), so two workers never hand out the same one; each is checked free before it is.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < STRIPE; tries++) {
    const port = STRIPE_START + (handedOut++ % STRIPE);
    if (await bindable(port)) return port;
  }
  throw new Error(`freePort: no free loopback port in ${STRIPE_START}–${STRIPE_START + STRIPE - 1}`);
}

const LOWEST = 20_000;
const STRIPE = 160;
/** Stripes of ports between LOWEST and the ephemeral range's start (32768). */
const STRIPES = Math.floor((32_768 - LOWEST) / STRIPE);
const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? Number.NaN);
const STRIPE_START = LOWEST + ((Number.isSafeInteger(worker) ? worker : process.pid) % STRIPES) * STRIPE;
let handedOut = 0;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Whether this run has the service a test file needs: `npm test` with only Node and npm skips the
 * file, saying so once; under CI (`CI=true`) a missing service fails the run instead.
 */
export function serviceFor(file: string, available: boolean, missing: string, install: string): boolean {
  if (available) return true;
  if (process.env.CI === 'true') throw new Error(`${file}: ${missing}, and CI requires it`);
  console.log(`${file}: skipped, ${missing} (${install})`);
  return false;
}
