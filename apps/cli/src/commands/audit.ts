import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir, openStore, readAudit } from '@elicitkit/opsdesk';
import type { Io } from '../io.js';
import { inLine, shownIo } from '../shown.js';
import { EXIT, refuseEmptyValues, UsageError, wholeNumber } from '../usage.js';
import { databaseFrom } from './database.js';

/** `elicitkit audit`: the three record kinds, grouped per tool call. Answers stay as redacted as stored. */
export async function audit(argv: string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string' },
      database: { type: 'string' },
      json: { type: 'boolean' },
      limit: { type: 'string' },
    },
    strict: true,
  });
  refuseEmptyValues(values);
  // Digits only: Number() would take '1e3', '0x10' and ' 7 '. Read before the data is looked for.
  const limit = wholeNumber('--limit', values.limit, 1000, 1);
  const database = databaseFrom(values.database, process.env);
  const dataDir = database === undefined ? findData(values.data) : (values.data ?? defaultDataDir());
  // The state alone: a reader opens no workspace, shop or seed (on Postgres the sync state and
  // the shop are every host's, and this machine's data directory may be new).
  const store = await openStore(dataDir, database);
  try {
    // The last N calls, each whole: records of one call are never cut apart.
    const trail = await readAudit(store, limit, { calls: true });
    if (values.json) {
      io.out(JSON.stringify(trail, null, 2));
      return EXIT.ok;
    }
    // Each call's records in the order they were written: by time to the millisecond (the line
    // shows it to the second); within one millisecond (each table numbers its own rows) the
    // question asked first goes first — an answer, then the question it led to — one question's
    // records in its own order (request, response, validation), then as stored.
    type Line = { at: string; question: string; kind: number; row: number; text: string };
    const calls = new Map<string, Line[]>();
    let kind = 0;
    const line = (r: Record<string, unknown>, text: string) => {
      const id = String(r.context_id);
      const list = calls.get(id) ?? [];
      const at = String(r.at);
      // One record, one line: a line break in its text (a caller's, a server's) would read as another record.
      const shown = `  ${at.slice(0, 19).replace('T', ' ')}  ${inLine(text, Number.POSITIVE_INFINITY)}`;
      list.push({ at, question: String(r.question ?? ''), kind, row: Number(r.id ?? 0), text: shown });
      calls.set(id, list);
    };
    for (const r of trail.requests)
      line(
        r,
        `request     ${r.tool}/${r.question} [${r.mode}, ${r.revision}${clientOf(r)}${r.delivered ? '' : `, not sent: ${r.reason}`}] ${r.message}`,
      );
    kind = 1;
    for (const r of trail.responses)
      line(
        r,
        `response    ${r.tool}/${r.question} ${r.action}${r.detail ? ` (${r.detail})` : ''}${r.content ? ` ${JSON.stringify(r.content)}` : ''} after ${r.elapsed_ms} ms`,
      );
    kind = 2;
    for (const r of trail.validations) {
      const issues = (r.issues as { message: string }[]).map((i) => i.message).join(' ');
      line(r, `validation  ${r.tool}/${r.question} ${r.ok ? 'ok' : `failed: ${issues}`}`);
    }
    kind = 3;
    for (const r of trail.violations) line(r, `violation   ${r.tool}/${r.question} ${r.rule}: ${r.message}`);
    // Refused before any question: the call's only record.
    kind = 4;
    for (const r of trail.refusals) line(r, `refused     ${r.tool} [${r.revision}] ${r.message}`);
    // Messages and details carry callers' and servers' text: nothing in it may drive the terminal.
    const human = shownIo(io);
    if (calls.size === 0) human.out('The audit trail is empty.');
    const byTime = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    for (const lines of calls.values()) {
      // The order questions were asked in: their request rows' numbers (one table, one sequence).
      const asked = new Map<string, number>();
      for (const l of lines) if (l.kind === 0 && !asked.has(l.question)) asked.set(l.question, l.row);
      const askedAt = (l: Line) => asked.get(l.question) ?? Number.POSITIVE_INFINITY;
      lines.sort((a, b) => byTime(a.at, b.at) || askedAt(a) - askedAt(b) || a.kind - b.kind || a.row - b.row);
    }
    const order = (a: Line, b: Line) => byTime(a.at, b.at) || a.kind - b.kind || a.row - b.row;
    // Calls in the order they began.
    const begun = [...calls].sort(([, a], [, b]) => order(a[0] as (typeof a)[0], b[0] as (typeof b)[0]));
    for (const [id, lines] of begun) {
      const first = [...trail.requests, ...trail.refusals].find((r) => r.context_id === id);
      const who = first && byWhom(first);
      human.out(`call ${inLine(id)}${who ? ` by ${who}` : ''}`);
      for (const l of lines) human.out(l.text);
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/** A name shown bare: one that could not be read as holding the account mark, or a quote. */
const PLAIN_NAME = /^[A-Za-z0-9._@+-]+$/;

/**
 * Who made a call, by account: a name is freed when its account is removed and taken by the next
 * one made under it, so the name alone would read two people as one. `carol (#3)`: the name the
 * account had then and its id, never anyone else's; a name that is not plain is quoted
 * (`"dave (#1)" (#5)`); `user-call-3 (no account)`: an identity that named no account (an
 * embedder's own); `removed account #7`: the account was gone before the record was written.
 */
function byWhom(r: Record<string, unknown>): string | undefined {
  const name = typeof r.username === 'string' ? r.username : undefined;
  const shown = name === undefined ? undefined : PLAIN_NAME.test(name) ? name : JSON.stringify(inLine(name));
  const account = r.user_id === null || r.user_id === undefined ? undefined : String(r.user_id);
  if (account === undefined) return shown === undefined ? undefined : `${shown} (no account)`;
  return shown === undefined ? `removed account #${account}` : `${shown} (#${account})`;
}

/** The known client asked and how its form was shaped, e.g. `, client trae (booleanAsChoice: confirmed)`. */
function clientOf(r: Record<string, unknown>): string {
  if (typeof r.client !== 'string') return '';
  const a = r.adaptation as { quirk: string; fields: string[] } | null | undefined;
  return `, client ${r.client}${a ? ` (${a.quirk}: ${a.fields.join(', ')})` : ''}`;
}

/**
 * Where the audit is read from: `--data`, else `ELICITKIT_DATA`, else the default data directory —
 * or, run in the repository with nothing there, the web app's `./.elicitkit` (`npm start`'s).
 * Nowhere with data: a usage error naming every place looked at.
 */
function findData(given: string | undefined): string {
  const explicit = given ?? (process.env.ELICITKIT_DATA || undefined);
  const places = explicit !== undefined ? [explicit] : [defaultDataDir(), join(process.cwd(), '.elicitkit')];
  const found = places.find((dir) => existsSync(join(dir, 'opsdesk.db')));
  if (found !== undefined) return found;
  throw new UsageError(
    `no opsdesk data in ${places.join(' or ')} (run elicitkit serve or npm start first, or pass --data DIR)`,
  );
}
