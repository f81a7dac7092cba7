import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { defaultDataDir, KEPT_BY_RESET, redactedUrl, resetDemo } from '@elicitkit/opsdesk';
import type { Io } from '../io.js';
import { EXIT, refuseEmptyValues, UsageError } from '../usage.js';
import { databaseFrom } from './database.js';

/** `elicitkit reset [--data DIR] [--yes]`: the demo back to its seed, after asking. */
export async function reset(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { data: { type: 'string' }, database: { type: 'string' }, yes: { type: 'boolean' } },
    strict: true,
  });
  refuseEmptyValues(values);
  // An empty ELICITKIT_DATA is not set (as every ELICITKIT_* variable): never the current directory.
  const dataDir = values.data ?? (process.env.ELICITKIT_DATA || undefined) ?? defaultDataDir();
  const database = databaseFrom(values.database, process.env);
  if (!(await confirmReset(dataDir, values.yes === true))) {
    io.err('Nothing was reset.');
    return EXIT.refused;
  }
  await runReset(dataDir, database, io);
  return EXIT.ok;
}

export async function runReset(dataDir: string, database: string | undefined, io: Io): Promise<void> {
  const report = await resetDemo(dataDir, database ? { database } : {});
  io.err(
    `opsdesk demo reset in ${dataDir}${database ? ` and ${redactedUrl(database)}` : ''}: shop (${report.shop}), services, release tickets, deployments, workspace (${report.workspace.local}, ${report.workspace.remote}) and sync state are back to the seed; kept: ${report.kept.join(', ')}.`,
  );
}

/**
 * Whether to go ahead: `--yes` says so; otherwise a person at a terminal answers y/N (default no).
 * Without a terminal there is nobody to ask, and a reset is never assumed.
 */
export async function confirmReset(
  dataDir: string,
  yes: boolean,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<boolean> {
  if (yes) return true;
  if (!input.isTTY)
    throw new UsageError(
      `a reset erases the demo data in ${dataDir} and must be confirmed; there is no terminal to ask, so pass --yes`,
    );
  const rl = createInterface({ input, output });
  try {
    const answer = await rl.question(
      `Reset the opsdesk demo in ${dataDir}? The shop, deployments, release tickets, workspace and sync state go back to the seed (kept: ${KEPT_BY_RESET.join(', ')}). [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
