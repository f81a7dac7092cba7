// A module-load hook for counting: every module Node loads (ESM or CommonJS through ESM) is
// appended to the file named by BENCH_MODULE_LOG, so a bench can count a process's import graph.
import { appendFileSync } from 'node:fs';

const log = process.env.BENCH_MODULE_LOG;

export async function load(url, context, next) {
  const result = await next(url, context);
  if (log && url.startsWith('file:')) appendFileSync(log, `${url}\n`);
  return result;
}
