/** A stdio MCP server over the fixture tools, for the child-process tests. */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createElicitkit } from '../src/kit.js';
import { createStore, fixtureTools } from './fixture-tools.js';

const store = createStore();
const kit = createElicitkit({ timeoutMs: Number(process.env.ELICITKIT_TIMEOUT_MS ?? 600_000) });
serveStdio(() => kit.createServer({ name: 'fixture', version: '1.0.0' }, fixtureTools(store)));
