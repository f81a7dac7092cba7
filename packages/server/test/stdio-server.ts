/**
 * A stdio MCP server over the fixture tools, for the child-process tests. Environment:
 * - `ELICITKIT_AUDIT_STDERR=1`: every audit event is written to stderr as one JSON line, so a test
 *   can see how a question ended even after its client went away;
 * - `ELICITKIT_CLAIMS_DB=path`: claims in that SQLite file (so they outlive the process), with
 *   `ELICITKIT_SECRET` (a restarted process must verify the old process's state) and
 *   `ELICITKIT_CLAIM_LEASE_MS`;
 * - `ELICITKIT_VOLATILE=1`: the volatile tools too (questions that change on every look);
 * - `ELICITKIT_UNSENDABLE=1`: the tools whose results JSON cannot hold (`unsendable-tools.ts`).
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import BetterSqlite3 from 'better-sqlite3';
import { createSqliteClaimStore } from '../src/claims/sqlite.js';
import { createElicitkit } from '../src/kit.js';
import { createStore, fixtureTools, volatileTools } from './fixture-tools.js';
import { unsendableTools } from './unsendable-tools.js';

const env = process.env;
const store = createStore();
const kit = createElicitkit({
  timeoutMs: Number(env.ELICITKIT_TIMEOUT_MS ?? 600_000),
  ...(env.ELICITKIT_AUDIT_STDERR ? { audit: (e) => void process.stderr.write(`${JSON.stringify(e)}\n`) } : {}),
  ...(env.ELICITKIT_CLAIMS_DB ? { claims: createSqliteClaimStore(new BetterSqlite3(env.ELICITKIT_CLAIMS_DB)) } : {}),
  ...(env.ELICITKIT_SECRET ? { secret: env.ELICITKIT_SECRET } : {}),
  ...(env.ELICITKIT_CLAIM_LEASE_MS ? { claimLeaseMs: Number(env.ELICITKIT_CLAIM_LEASE_MS) } : {}),
});
const tools = [
  ...fixtureTools(store),
  ...(env.ELICITKIT_VOLATILE ? volatileTools(store) : []),
  ...(env.ELICITKIT_UNSENDABLE ? unsendableTools() : []),
];
serveStdio(() => kit.createServer({ name: 'fixture', version: '1.0.0' }, tools));
