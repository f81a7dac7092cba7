import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpOpsdeskForSuite } from '../test/harness.js';

// Connections the burst needs queued at once: more than Node's default backlog (511).
const BURST = 800;

function somaxconn(): number {
  try {
    return Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  } catch {
    return 0;
  }
}

// Opens BURST connections and exits 0 once every one is established, 1 if some never are (the
// kernel dropped their SYNs: the listen queue overflowed while the server was not accepting).
const CONNECTOR = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
let connected = 0;
for (let i = 0; i < n; i++) {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('connect', () => { if (++connected === n) process.exit(0); });
  socket.on('error', (e) => { console.error(e.message); process.exit(2); });
}
setTimeout(() => { console.error(connected + ' of ' + n + ' connected'); process.exit(1); }, 8000);
`;

describe.skipIf(somaxconn() < BURST)('opsdesk HTTP listen queue', () => {
  const served = httpOpsdeskForSuite();

  it('queues a burst of new connections while its event loop is busy (each dropped SYN costs a client 1 s)', () => {
    // execFileSync blocks this process, so the server accepts nothing until the child is done:
    // every connection must fit in the kernel's queue at once.
    const run = () =>
      execFileSync(process.execPath, ['-e', CONNECTOR, String(served.server.port), String(BURST)], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 30_000,
      });
    expect(run).not.toThrow();
  });
});
