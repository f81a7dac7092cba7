#!/usr/bin/env node
// The built CLI; `npm install` (prepare) builds it.
await import('../dist/cli.js');
