import type {
  AnyTool,
  AttemptEffect,
  AuditEvent,
  ClaimStore,
  CommitOptions,
  Effect,
  ToolContext,
} from '@elicitkit/server';
import type { Database } from './db/open.js';
import { all, type Query, run, values } from './db/query.js';
import { answerOn } from './db/sqlite-store.js';
import { runSteps, type Store } from './db/store.js';
import { accountOf } from './identity.js';

/** A database's audit rows made but not committed yet, and the ways they leave the queue. */
export interface AuditQueue {
  /** Commits every queued row now (SQLite: in its own transaction, or in the caller's when one is open). */
  flush(): void | Promise<void>;
  /** The effect, carrying the rows queued before it (`carryingAudit`). */
  carry(effect: Effect, options: CommitOptions | undefined): Effect;
}

/** The queue of each database: keyed by the SQLite connection, or by the Postgres store. */
const queues = new WeakMap<object, AuditQueue>();

/** Registers the queue `key`'s audit rows go through (`flushAudit`, `recordCallEnds` find it there). */
export function setAuditQueue(key: object, queue: AuditQueue): void {
  queues.set(key, queue);
}

function queueKey(store: Store | Database): object {
  return 'dialect' in store && store.dialect === 'sqlite' ? (store as Store & { db: Database }).db : store;
}

/**
 * Writes each kind of audit event to its own table: requests, responses and validations stay
 * apart. Rows are queued and committed together, when what they record leads somewhere:
 * - a question's record (and a violation) commits as a microtask, with every row queued before
 *   it: before the question (or the call's next step) goes out;
 * - an answer's records (response, validation) wait for what the answer leads to: they commit in
 *   the effect's own transaction when the call acts (`recordCallEnds`), before its claim when
 *   the effect cannot share one (`auditBeforeClaims`), with the next question's record when it
 *   asks again, before the result when it returns without acting, and at the latest at the end
 *   of this turn of the event loop.
 * So a deploy commits twice (the question; then answer, claim, row and result), and an effect is
 * never on disk without the records of the questions that led to it.
 *
 * @example
 * const kit = createElicitkit({ audit: sqliteAudit(db) });
 */
export function sqliteAudit(db: Database): (event: AuditEvent) => void {
  const answer = answerOn(db);
  const write = (event: AuditEvent) => runSteps(insertEvent(event), answer);
  const writeAll = db.transaction((events: readonly AuditEvent[]) => {
    for (const event of events) write(event);
  });
  /**
   * In the caller's transaction when one is open, as a savepoint: a failing write is undone alone.
   * One row (a question's record, most often) needs neither transaction nor savepoint: a statement
   * commits alone, and one that fails inside a transaction is undone alone — the same, for about
   * half the cost of BEGIN, INSERT, COMMIT.
   */
  const writeSafely = (events: readonly AuditEvent[]) => {
    if (events.length === 0) return;
    try {
      if (events.length === 1) write(events[0] as AuditEvent);
      else writeAll(events);
    } catch {
      // A failing audit write never breaks a tool call (AuditSink's contract).
    }
  };
  let pending: AuditEvent[] = [];
  const take = () => {
    const events = pending;
    pending = [];
    return events;
  };
  const flush = () => writeSafely(take());
  let soon = false;
  let later = false;
  const flushLater = () => {
    if (later) return;
    later = true;
    setImmediate(() => {
      later = false;
      flush();
    });
  };
  const together = db.transaction((events: readonly AuditEvent[], effect: () => unknown) => {
    writeSafely(events);
    return effect();
  });
  const withEffect = <T>(effect: () => T): T => {
    const events = take();
    try {
      // IMMEDIATE: the write lock is taken (or waited for) up front, as a claim's transaction
      // does, so an effect that reads before it writes cannot lose a race to another process.
      return together.immediate(events, effect) as T;
    } catch (error) {
      // Rolled back with the effect. Queued again, they commit once this transaction (and any
      // the effect ran inside, such as its claim's) is over: the questions were asked all the same.
      pending = [...events, ...pending];
      flushLater();
      throw error;
    }
  };
  queues.set(db, {
    flush,
    carry(effect, options) {
      if (options?.atomic) {
        // An async function marked atomic is the kit's to refuse before it starts: passed on as it is.
        if (effect.constructor.name === 'AsyncFunction') return effect;
        // Rest parameters: the wrapper passes on whatever the kit hands the effect, and keeps arity 0.
        return (...tx) => withEffect(() => effect(...tx));
      }
      return (...tx) => {
        flush();
        return effect(...tx);
      };
    },
  });
  return (event) => {
    pending.push(event);
    if (event.type === 'response' || event.type === 'validation') flushLater();
    else if (!soon) {
      soon = true;
      queueMicrotask(() => {
        soon = false;
        flush();
      });
    }
  };
}

/**
 * Commits the audit rows still queued on `store`, inside the caller's transaction when one is
 * open on SQLite (then they commit, or roll back, with it).
 */
export function flushAudit(store: Store | Database): void | Promise<void> {
  return queues.get(queueKey(store))?.flush();
}

/**
 * `store`, committing `db`'s queued audit rows before every claim: an effect that runs after its
 * claim (one that cannot share a transaction with it) is never on disk without the records of the
 * questions that led to it. A one-transaction effect (`atomically`) is left alone: it carries its
 * rows itself (`recordCallEnds`), so they commit with it.
 */
export function auditBeforeClaims(store: ClaimStore, db: Store | Database): ClaimStore {
  const wrapped: ClaimStore = {
    claim: async (id, owner, options) => {
      await flushAudit(db);
      return store.claim(id, owner, options);
    },
    renew: (id, owner, leaseMs) => store.renew(id, owner, leaseMs),
    complete: (id, owner, result) => store.complete(id, owner, result),
    release: (id, owner) => store.release(id, owner),
    read: (id) => store.read(id),
    sweep: () => store.sweep(),
  };
  const atomically = store.atomically;
  if (atomically) wrapped.atomically = (id, ttlMs, effect) => atomically(id, ttlMs, effect);
  const transaction = store.transaction;
  if (transaction) wrapped.transaction = (effect) => transaction(effect);
  const atomicallyAsync = store.atomicallyAsync;
  if (atomicallyAsync)
    wrapped.atomicallyAsync = (id, ttlMs, effect, options) => atomicallyAsync(id, ttlMs, effect, options);
  return wrapped;
}

/**
 * The effect as `ctx.commit` should run it so it carries the audit rows queued before it: a
 * one-transaction (`atomic`) effect writes them in its own transaction — one commit fewer per
 * call, and a crash loses both or neither; any other effect commits them just before it acts.
 */
function carryingAudit(key: object, effect: Effect, options: CommitOptions | undefined): Effect {
  return queues.get(key)?.carry(effect, options) ?? effect;
}

/** `then()` once `key`'s queued rows are committed: at once on SQLite, after the flush's round trips on Postgres. */
function afterFlush<T>(key: object, then: () => T | Promise<T>): T | Promise<T> {
  const flushing = queues.get(key)?.flush();
  return flushing ? flushing.then(then) : then();
}

/** One audit event's row, in its kind's table. */
export function* insertEvent(e: AuditEvent): Query<void> {
  // The kit's identity is the account (`accountIdentity`): the row keeps it and the name it has now.
  // An identity that names no account (an embedder's own, kept by its sink) is kept as written, with no account.
  const who = accountOf(e.user) ?? null;
  const written = who === null ? (e.user ?? null) : null;
  switch (e.type) {
    case 'request':
      yield* run(
        'INSERT INTO audit_requests (context_id, tool, question, user_id, username, mode, revision, message, fields, origin, delivered, reason, at, client, adaptation) VALUES (?, ?, ?, ?, COALESCE((SELECT username FROM users WHERE id = ?), ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        e.contextId,
        e.tool,
        e.key,
        who,
        who,
        written,
        e.mode,
        e.revision,
        e.message,
        e.fields ? JSON.stringify(e.fields) : null,
        e.origin ?? null,
        e.delivered ? 1 : 0,
        e.reason ?? null,
        e.at,
        e.client ?? null,
        e.adaptation ? JSON.stringify(e.adaptation) : null,
      );
      break;
    case 'response':
      yield* run(
        'INSERT INTO audit_responses (context_id, tool, question, user_id, username, action, content, elapsed_ms, detail, at) VALUES (?, ?, ?, ?, COALESCE((SELECT username FROM users WHERE id = ?), ?), ?, ?, ?, ?, ?)',
        e.contextId,
        e.tool,
        e.key,
        who,
        who,
        written,
        e.action,
        e.content ? JSON.stringify(e.content) : null,
        e.elapsedMs,
        // How a question ended without the person (client-cancelled, disconnected, session-closed) leads the detail.
        e.reason ? [e.reason, e.detail].filter(Boolean).join(': ') : (e.detail ?? null),
        e.at,
      );
      break;
    case 'validation':
      yield* run(
        'INSERT INTO audit_validations (context_id, tool, question, user_id, username, ok, issues, at) VALUES (?, ?, ?, ?, COALESCE((SELECT username FROM users WHERE id = ?), ?), ?, ?, ?)',
        e.contextId,
        e.tool,
        e.key,
        who,
        who,
        written,
        e.ok ? 1 : 0,
        JSON.stringify(e.issues),
        e.at,
      );
      break;
    case 'violation':
      yield* run(
        'INSERT INTO audit_violations (context_id, tool, question, user_id, username, rule, message, at) VALUES (?, ?, ?, ?, COALESCE((SELECT username FROM users WHERE id = ?), ?), ?, ?, ?)',
        e.contextId,
        e.tool,
        e.key,
        who,
        who,
        written,
        e.rule,
        e.message,
        e.at,
      );
      break;
  }
}

/**
 * How each call of `tool` ends, on the record. A call that ends `rejected` — refused for who is
 * asking or what they ask (a service they may not deploy, a path outside the workspace, several
 * SQL statements) — usually asks nothing, so no request row shows it; the refusal is its own
 * record. A replayed round refused again is recorded again: it was refused again. The rows the
 * call's answers queued go with what they led to: its effect (`ctx.commit`) carries them — in its
 * own transaction when it is `atomic`, committed just before it otherwise — and a call that
 * returns without acting commits them before its result leaves.
 *
 * @example
 * const tools = [deployTool(deps)].map(recordCallEnds(db));
 */
export function recordCallEnds(store: Store): (tool: AnyTool) => AnyTool {
  const key = queueKey(store);
  return (tool) => ({
    ...tool,
    async run(args: unknown, ctx: ToolContext) {
      const result = await tool.run(args, {
        ...ctx,
        commit: (effect: Effect, options?: CommitOptions) => ctx.commit(carryingAudit(key, effect, options), options),
        // An attempt is an effect too (kept or rolled back): queued rows go first, or, atomic, with
        // whatever ends the call (it cannot be held in another transaction's).
        attempt: <W>(effect: AttemptEffect<W>, options?: CommitOptions) =>
          options?.atomic
            ? ctx.attempt<W>(effect, options)
            : ctx.attempt<W>((withhold, ...tx) => afterFlush(key, () => effect(withhold, ...tx)), options),
      });
      const structured = result.structuredContent as
        | { status?: unknown; message?: unknown; question?: unknown }
        | undefined;
      // Refused: by the tool (`rejected`), or its arguments refused before any question (`invalid`
      // with no question it answers) — weekly_report's project the caller may not see, answered
      // as one that does not exist, is a refusal of what they may do all the same.
      if (
        structured?.status === 'rejected' ||
        (structured?.status === 'invalid' && structured.question === undefined)
      ) {
        const text = typeof structured.message === 'string' ? structured.message : '';
        await store
          .run(
            run(
              'INSERT INTO audit_refusals (context_id, tool, user_id, username, revision, message, at) VALUES (?, ?, ?, COALESCE((SELECT username FROM users WHERE id = ?), ?), ?, ?, ?)',
              ctx.contextId,
              tool.name,
              accountOf(ctx.user) ?? null,
              accountOf(ctx.user) ?? null,
              accountOf(ctx.user) === undefined ? (ctx.user ?? null) : null,
              ctx.revision,
              text,
              Date.now(),
            ),
          )
          // Like every audit write: a failing one never breaks the call (nothing was done anyway).
          .catch(() => {});
      }
      await flushAudit(store);
      return result;
    },
  });
}

/** The audit trail as stored: each record kind in its own list, oldest first. */
export interface AuditTrail {
  requests: Record<string, unknown>[];
  responses: Record<string, unknown>[];
  validations: Record<string, unknown>[];
  violations: Record<string, unknown>[];
  /** Calls refused without a question (`recordCallEnds`). */
  refusals: Record<string, unknown>[];
}

/**
 * The trail, oldest first, each kind in its own list; JSON columns decoded: the last `limit`
 * records of each kind, or with `calls` the last `limit` tool calls with all their records. From a store
 * (the rows it still queues are committed first), or from a SQLite connection of its own
 * (read-only, as the web app's audit page opens one).
 *
 * @example
 * const { requests, responses } = await readAudit(opsdesk.store, 100); // the last 100 of each kind
 */
export async function readAudit(
  from: Store | Database,
  limit = 1000,
  options: { calls?: boolean } = {},
): Promise<AuditTrail> {
  await flushAudit(from);
  const query = options.calls ? auditOfCalls(limit) : auditTrail(limit);
  return 'dialect' in from ? from.run(query) : runSteps(query, answerOn(from));
}

const AUDIT_TABLES = ['audit_requests', 'audit_responses', 'audit_validations', 'audit_violations', 'audit_refusals'];

/** The last `calls` tool calls, each with every record it has (`readAudit(…, { calls: true })`). */
function* auditOfCalls(calls: number): Query<AuditTrail> {
  const union = AUDIT_TABLES.map((t) => `SELECT context_id, at FROM ${t}`).join(' UNION ALL ');
  const ids = yield* values<string>(
    `SELECT context_id FROM (${union}) AS records GROUP BY context_id ORDER BY max(at) DESC LIMIT ?`,
    calls,
  );
  const rows = function* (table: string) {
    if (ids.length === 0) return [];
    const found = yield* all<Record<string, unknown>>(
      `SELECT * FROM ${table} WHERE context_id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
      ...ids,
    );
    return found.map(decode);
  };
  return yield* eachKind(rows);
}

function* auditTrail(limit: number): Query<AuditTrail> {
  const rows = function* (table: string) {
    const found = yield* all<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY id DESC LIMIT ?`, limit);
    return found.reverse().map(decode);
  };
  return yield* eachKind(rows);
}

/** The trail, each kind of record read by `rows` from its table, in one order for every reader. */
function* eachKind(rows: (table: string) => Query<Record<string, unknown>[]>): Query<AuditTrail> {
  return {
    requests: yield* rows('audit_requests'),
    responses: yield* rows('audit_responses'),
    validations: yield* rows('audit_validations'),
    violations: yield* rows('audit_violations'),
    refusals: yield* rows('audit_refusals'),
  };
}

function decode(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row, at: new Date(row.at as number).toISOString() };
  for (const key of ['fields', 'content', 'issues', 'adaptation']) {
    if (typeof row[key] === 'string') out[key] = JSON.parse(row[key] as string);
  }
  if ('delivered' in row) out.delivered = row.delivered === 1;
  if ('ok' in row) out.ok = row.ok === 1;
  return out;
}
