#!/usr/bin/env node
import { Console } from 'node:console';
import { main } from './main.js';

// stdout carries only what a command produces (`--json`, pipes, `serve --stdio`'s MCP messages);
// whatever a library logs through `console` (the SDK's `console.debug` notices, say) is a
// diagnostic, and goes to stderr.
globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });

process.exitCode = await main(process.argv.slice(2));
