/**
 * A stdio MCP server over the fixture tools, for the child-process tests. With
 * `ELICITKIT_AUDIT_STDERR=1` every audit event is written to stderr as one JSON line, so a test can
 * see how a question ended even after its client went away.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createElicitkit } from '../src/kit.js';
import { createStore, fixtureTools } from './fixture-tools.js';

const store = createStore();
const kit = createElicitkit({
  timeoutMs: Number(process.env.ELICITKIT_TIMEOUT_MS ?? 600_000),
  ...(process.env.ELICITKIT_AUDIT_STDERR ? { audit: (e) => void process.stderr.write(`${JSON.stringify(e)}\n`) } : {}),
});
serveStdio(() => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(store)));
