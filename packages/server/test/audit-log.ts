/** Audit events as they happen, and a way to wait for the one a test is about. */
import type { AuditEvent, AuditResponse } from '../src/audit.js';

export interface AuditLog {
  events: AuditEvent[];
  sink(event: AuditEvent): void;
  /** The first response record (already seen or still to come) for question `key`. */
  response(key: string): Promise<AuditResponse>;
}

export function auditLog(): AuditLog {
  const events: AuditEvent[] = [];
  const waiting: { key: string; resolve: (e: AuditResponse) => void }[] = [];
  const find = (key: string) => events.find((e): e is AuditResponse => e.type === 'response' && e.key === key);
  return {
    events,
    sink(event) {
      events.push(event);
      if (event.type !== 'response') return;
      for (const w of waiting.filter((w) => w.key === event.key)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(event);
      }
    },
    response(key) {
      const seen = find(key);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ key, resolve }));
    },
  };
}
