/**
 * A broken server over stdio, for doctor's tests of real child processes:
 * `node --import tsx --conditions=@elicitkit/source broken-stdio.ts slow good exit`; `readonly`
 * and `ask-outside` are `brokenServer`'s options.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { brokenServer } from './broken-servers.js';

const args = process.argv.slice(2);
const flags = ['readonly', 'ask-outside'];
const options = { readOnly: args.includes('readonly'), askOutside: args.includes('ask-outside') };
serveStdio(() =>
  brokenServer(
    args.filter((a) => !flags.includes(a)),
    options,
  ),
);
