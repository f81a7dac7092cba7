import type { AuditEvent, Effect } from '@elicitkit/server';
import { insertEvent, setAuditQueue } from './audit.js';
import type { PostgresStore } from './db/postgres-store.js';
import type { Query } from './db/query.js';

/**
 * The audit trail on Postgres, kept as `sqliteAudit` keeps it on SQLite: rows are queued and
 * committed when what they record leads somewhere. A question's record is sent as a microtask (a
 * round trip later it is stored; the kit does not wait for audit writes), an answer's waits for
 * what it leads to, at the latest the next turn of the event loop. An `atomic` effect carries the
 * rows queued before it into its own transaction (on the client it is handed), so an effect is
 * never stored without the records of the questions that led to it; any other effect waits until
 * they are stored.
 *
 * @example
 * const kit = createElicitkit({ audit: postgresAudit(store), claims: store.claims });
 */
export function postgresAudit(store: PostgresStore): (event: AuditEvent) => void {
  let pending: AuditEvent[] = [];
  // Flushes one after another, so rows are stored in the order they were made.
  let stored: Promise<void> = Promise.resolve();
  const take = () => {
    const events = pending;
    pending = [];
    return events;
  };
  const flush = (): Promise<void> => {
    const events = take();
    if (events.length > 0)
      stored = stored.then(() =>
        store.run(insertAll(events)).catch(() => {
          // A failing audit write never breaks a tool call (AuditSink's contract).
        }),
      );
    return stored;
  };
  let soon = false;
  let later = false;
  const flushLater = () => {
    if (later) return;
    later = true;
    setImmediate(() => {
      later = false;
      void flush();
    });
  };
  setAuditQueue(store, {
    flush,
    carry(effect, options): Effect {
      if (!options?.atomic)
        return async (...tx) => {
          await flush();
          return effect(...tx);
        };
      return async (tx: never) => {
        // Rows already on their way are stored first; the rest go in the effect's transaction.
        await stored;
        const events = take();
        try {
          await store.runIn(tx, insertAll(events));
          return await effect(tx);
        } catch (error) {
          // Rolled back with the effect: queued again, stored once this transaction is over.
          pending = [...events, ...pending];
          flushLater();
          throw error;
        }
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
        void flush();
      });
    }
  };
}

function* insertAll(events: readonly AuditEvent[]): Query<void> {
  for (const event of events) yield* insertEvent(event);
}
