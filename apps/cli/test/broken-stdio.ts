/**
 * A broken server over stdio, for doctor's tests of real child processes:
 * `node --import tsx --conditions=@elicitkit/source broken-stdio.ts slow good exit`.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { brokenServer } from './broken-servers.js';

const args = process.argv.slice(2);
const bugs = args.filter((a) => a !== 'readonly');
serveStdio(() => brokenServer(bugs, args.includes('readonly') ? { readOnly: true } : {}));
