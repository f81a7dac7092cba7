/**
 * Run as a child process with stdin a pipe (not a terminal) and no answers file: attaches the
 * default terminal renderer and prints, per revision, the elicitation capability the server sees.
 */
import { attach } from '../src/attach/index.js';
import { createTerminalRenderer } from '../src/renderers/terminal/index.js';
import { connect, REVISIONS } from './servers.js';

const seen: Record<string, unknown> = {};
for (const revision of REVISIONS) {
  let modes: unknown;
  const connection = await connect(revision, (client) => {
    modes = attach(client, { renderer: createTerminalRenderer() }).modes;
  });
  const capabilities = await connection.capabilities();
  seen[revision] = { modes, elicitation: capabilities.elicitation ?? null, stdinIsTTY: process.stdin.isTTY === true };
  await connection.close();
}
process.stdout.write(JSON.stringify(seen));
