#!/usr/bin/env node
import { cleanConsole } from './clean-console.js';
import { main } from './main.js';

// stdout carries only what a command produces (`--json`, pipes, `serve --stdio`'s MCP messages);
// whatever a library logs through `console` (the SDK's `console.debug` notices and warnings, which
// may quote a server's text) is a diagnostic, and goes to stderr, cleaned for the terminal.
globalThis.console = cleanConsole(process.stderr).console;

process.exitCode = await main(process.argv.slice(2));
