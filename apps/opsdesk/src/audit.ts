import type { AnyTool, AuditEvent, ToolContext } from '@elicitkit/server';
import type { Database } from './db/open.js';

/** Writes each kind of audit event to its own table: requests, responses and validations stay apart. */
export function sqliteAudit(db: Database): (event: AuditEvent) => void {
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
        insert.run(ctx.contextId, tool.name, ctx.user ?? null, ctx.revision, text, Date.now());
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
