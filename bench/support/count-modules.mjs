// `node --import ./bench/support/count-modules.mjs …` counts a process's import graph: ES modules
// through a load hook, CommonJS ones from the require cache at exit, all appended (as file URLs) to
// the file named by BENCH_MODULE_LOG.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./count-modules-hook.mjs', import.meta.url);

const log = process.env.BENCH_MODULE_LOG;
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  if (!log) return;
  const files = Object.keys(cache).map((file) => pathToFileURL(file).href);
  if (files.length > 0) appendFileSync(log, `${files.join('\n')}\n`);
});
