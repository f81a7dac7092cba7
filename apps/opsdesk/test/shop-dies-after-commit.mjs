// Loaded into a shop process with `--import` (through NODE_OPTIONS): once a COMMIT returns, the
// process kills itself before it can answer, as one killed by the system at that moment would be.
// The fault a test cannot time from outside: the write is kept, and its answer never comes.
import { createRequire } from 'node:module';

const require = createRequire(`${process.cwd()}/package.json`);
const Database = require('better-sqlite3');
const exec = Database.prototype.exec;
Database.prototype.exec = function (sql) {
  const result = exec.call(this, sql);
  if (sql === 'COMMIT' && process.send) process.kill(process.pid, 'SIGKILL');
  return result;
};
