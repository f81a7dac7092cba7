/** What the test helpers that start a real service (Redis, PostgreSQL) share. */
import { createServer } from 'node:net';

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
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
