// Loaded into a shop process with `--import` (through NODE_OPTIONS): once a COMMIT returns, the
// process kills itself before it can answer, as one killed by the system at that moment would be.
// The fault a test cannot time from outside: the write is kept, and its answer never comes.
//
// It patches better-sqlite3's native addon, which Node loads once per process from its file:
// the worker's JavaScript may be better-sqlite3's in node_modules (from the sources) or its own
// bundled copy (a one-file build), and both run statements through this addon's `exec`.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

const require = createRequire(`${process.cwd()}/package.json`);
const addon = require('bindings')({
  bindings: 'better_sqlite3.node',
  module_root: dirname(require.resolve('better-sqlite3/package.json')),
});
const exec = addon.Database.prototype.exec;
addon.Database.prototype.exec = function (sql) {
  const result = exec.call(this, sql);
  if (sql === 'COMMIT' && process.send) process.kill(process.pid, 'SIGKILL');
  return result;
};
