import type { AnyTool, AuditEvent, ClaimStore, ToolContext } from '@elicitkit/server';
import type { Database } from './db/open.js';

/** Audit rows made but not committed yet, per connection: `readAudit` and claims commit them first. */
const pendingRows = new WeakMap<Database, () => void>();

/**
 * Writes each kind of audit event to its own table: requests, responses and validations stay
 * apart. The rows one step of a call makes (an answer's response and validation records) commit
 * together, in one transaction queued as a microtask: one commit instead of one per row, and still
 * before anything that step leads to runs (the tool's next line, the result sent). `flushAudit`
 * commits them at once; opsdesk's claims call it first, so an effect never commits without them.
 *
 * @example
 * const kit = createElicitkit({ audit: sqliteAudit(db) });
 */
export function sqliteAudit(db: Database): (event: AuditEvent) => void {
  const write = rowWriter(db);
  const writeAll = db.transaction((events: AuditEvent[]) => {
    for (const event of events) write(event);
  });
  let pending: AuditEvent[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const events = pending;
    pending = [];
    try {
      writeAll(events);
    } catch {
      // As before batching: a failing audit write never breaks a tool call (AuditSink's contract).
    }
  };
  pendingRows.set(db, flush);
  return (event) => {
    pending.push(event);
    if (pending.length === 1) queueMicrotask(flush);
  };
}

/**
 * Commits the audit rows still queued on `db`, inside the caller's transaction when one is open
 * (then they commit, or roll back, with it).
 */
export function flushAudit(db: Database): void {
  pendingRows.get(db)?.();
}

/**
 * `store`, committing `db`'s queued audit rows before every claim: a call's effect (which only
 * runs once claimed) is never on disk without the records of the questions that led to it. They
 * commit just before the claim's own transaction, not inside it, so an effect that throws and
 * rolls back cannot take them with it.
 */
export function auditBeforeClaims(store: ClaimStore, db: Database): ClaimStore {
  const wrapped: ClaimStore = {
    claim: (id, owner, options) => {
      flushAudit(db);
      return store.claim(id, owner, options);
    },
    renew: (id, owner, leaseMs) => store.renew(id, owner, leaseMs),
    complete: (id, owner, result) => store.complete(id, owner, result),
    release: (id, owner) => store.release(id, owner),
    read: (id) => store.read(id),
    sweep: () => store.sweep(),
  };
  if (store.atomically) {
    wrapped.atomically = (id, ttlMs, effect) => {
      flushAudit(db);
      // biome-ignore lint/style/noNonNullAssertion: checked just above; a store's methods do not change.
      return store.atomically!(id, ttlMs, effect);
    };
  }
  return wrapped;
}

function rowWriter(db: Database): (event: AuditEvent) => void {
  const request = db.prepare(
    'INSERT INTO audit_requests (context_id, tool, question, username, mode, revision, message, fields, origin, delivered, reason, at, client, adaptation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const response = db.prepare(
    'INSERT INTO audit_responses (context_id, tool, question, username, action, content, elapsed_ms, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const validation = db.prepare(
    'INSERT INTO audit_validations (context_id, tool, question, username, ok, issues, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const violation = db.prepare(
    'INSERT INTO audit_violations (context_id, tool, question, username, rule, message, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  return (e) => {
    const who = e.user ?? null;
    switch (e.type) {
      case 'request':
        request.run(
          e.contextId,
          e.tool,
          e.key,
          who,
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
        response.run(
          e.contextId,
          e.tool,
          e.key,
          who,
          e.action,
          e.content ? JSON.stringify(e.content) : null,
          e.elapsedMs,
          // How a question ended without the person (client-cancelled, disconnected, session-closed) leads the detail.
          e.reason ? [e.reason, e.detail].filter(Boolean).join(': ') : (e.detail ?? null),
          e.at,
        );
        break;
      case 'validation':
        validation.run(e.contextId, e.tool, e.key, who, e.ok ? 1 : 0, JSON.stringify(e.issues), e.at);
        break;
      case 'violation':
        violation.run(e.contextId, e.tool, e.key, who, e.rule, e.message, e.at);
        break;
    }
  };
}

/**
 * Records every call of `tool` that ends `rejected` — refused for who is asking or what they ask
 * (a service they may not deploy, a path outside the workspace, several SQL statements). Such a
 * call usually asks nothing, so no request row shows it; the refusal is its own record. A replayed
 * round refused again is recorded again: it was refused again.
 *
 * @example
 * const tools = [deployTool(deps)].map(recordRefusals(db));
 */
export function recordRefusals(db: Database): (tool: AnyTool) => AnyTool {
  const insert = db.prepare(
    'INSERT INTO audit_refusals (context_id, tool, username, revision, message, at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return (tool) => ({
    ...tool,
    async run(args: unknown, ctx: ToolContext) {
      const result = await tool.run(args, ctx);
      const structured = result.structuredContent as { status?: unknown; message?: unknown } | undefined;
      if (structured?.status === 'rejected') {
        const text = typeof structured.message === 'string' ? structured.message : '';
        try {
          insert.run(ctx.contextId, tool.name, ctx.user ?? null, ctx.revision, text, Date.now());
        } catch {
          // Like every audit write: a failing one never breaks the call (nothing was done anyway).
        }
      }
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
  /** Calls refused without a question (`recordRefusals`). */
  refusals: Record<string, unknown>[];
}

/**
 * The whole trail, oldest first, each kind in its own list; JSON columns decoded.
 *
 * @example
 * const { requests, responses } = readAudit(opsdesk.db, 100); // the last 100 of each kind
 */
export function readAudit(db: Database, limit = 1000): AuditTrail {
  flushAudit(db);
  const rows = (table: string) =>
    (db.prepare(`SELECT * FROM ${table} ORDER BY id DESC LIMIT ?`).all(limit) as Record<string, unknown>[])
      .reverse()
      .map(decode);
  return {
    requests: rows('audit_requests'),
    responses: rows('audit_responses'),
    validations: rows('audit_validations'),
    violations: rows('audit_violations'),
    refusals: rows('audit_refusals'),
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
