#!/usr/bin/env node
// The built CLI; `npm install` (prepare) builds it. `serve` starts from the one-file build of its
// path (dist/bundle, made by `npm run build`) while that is current: resolving and compiling ~240
// separate module files was most of its cold start. Every other command, or a stale bundle, runs dist/.
import { currentBuild } from '../dist/current-build.js';

const bundle = process.argv[2] === 'serve' ? currentBuild(new URL('../dist/bundle/', import.meta.url)) : undefined;
await import(bundle ?? '../dist/cli.js');
