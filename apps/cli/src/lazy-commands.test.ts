import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI, HANDSHAKE_THEN_LIST, SOURCE_NODE_ARGS, tempDataDir } from '../../opsdesk/test/harness.js';

const COUNT_HOOK = fileURLToPath(new URL('../../../bench/support/count-modules.mjs', import.meta.url));

/** Every module file `elicitkit serve --stdio` loads up to its first `tools/list` answer. */
async function modulesLoadedByServe(): Promise<string[]> {
  const data = tempDataDir();
  const log = join(data.dir, 'modules.log');
  const child = execFile(
    process.execPath,
    [...SOURCE_NODE_ARGS, '--import', COUNT_HOOK, CLI, 'serve', '--stdio', '--data', data.dir],
    { env: { ...process.env, BENCH_MODULE_LOG: log } },
  );
  child.stdin?.end(HANDSHAKE_THEN_LIST);
  const exited = promisify((cb: (e: Error | null, code: number | null) => void) =>
    child.once('exit', (code) => cb(null, code)),
  );
  try {
    expect(await exited()).toBe(0);
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } finally {
    data.remove();
  }
}

describe('commands load on demand', () => {
  it('serve --stdio loads neither the other commands nor what only they need (nor Redis, the shop worker, ajv)', async () => {
    const loaded = await modulesLoadedByServe();
    expect(loaded.some((f) => f.includes('/apps/cli/src/commands/serve.ts'))).toBe(true);
    const unwanted = [
      '/apps/cli/src/commands/call.ts',
      '/apps/cli/src/commands/doctor.ts',
      '/apps/cli/src/commands/install.ts',
      '/packages/client/',
      '/@modelcontextprotocol/client/',
      '/@clack/',
      '/node_modules/diff/',
      '/node_modules/jsonc-parser/',
      '/node_modules/eventsource/',
      // Redis is for replicas of serve --http only.
      '/node_modules/ioredis/',
      '/packages/server/src/relay/',
      '/apps/opsdesk/src/replicas.ts',
      // The SQL analysis and execution run in the shop's own process, started at the first execute_sql.
      '/apps/opsdesk/src/shop/worker-main.ts',
      '/apps/opsdesk/src/shop/inspect.ts',
      '/apps/opsdesk/src/shop/run.ts',
      // Answers are checked by the form's own validator: no standalone ajv (nor its meta-schema compile).
      '/node_modules/ajv/',
      '/node_modules/ajv-formats/',
    ];
    expect(loaded.filter((f) => unwanted.some((u) => f.includes(u)))).toEqual([]);
  });
});
