/**
 * What a confirmation covers, judged on executions as the shop measures them: a counted allowance
 * holds each table's rows by kind, so a run that changes as many rows another way (an upsert that
 * updates where it inserted, a delete where it updated) is beyond it; fewer rows of a kind stay
 * within. A bound stated in words (a statement whose effect varies) stays a total per table.
 */
import { describe, expect, it } from 'vitest';
import { allowanceFor, beyond, type Execution, type TableEffect } from './effect.js';

function run(tables: Record<string, Partial<TableEffect>>, varies: string[] = []): Execution {
  const full = Object.fromEntries(
    Object.entries(tables).map(([name, t]) => [
      name,
      { before: 200, after: 200, inserted: 0, updated: 0, deleted: 0, ...t } satisfies TableEffect,
    ]),
  );
  return {
    tables: full,
    schema: { added: [], removed: [], altered: [] },
    changes: 0,
    varies,
    writes: Object.keys(tables),
    direct: Object.keys(tables),
    returned: { columns: [], rows: [], count: 0, complete: true },
  } as unknown as Execution;
}

describe('a counted confirmation, kind by kind', () => {
  const shown = allowanceFor(run({ products: { inserted: 150 } }));

  it('the same change again is within it; fewer rows too', () => {
    expect(beyond(run({ products: { inserted: 150 } }), { allowed: shown })).toBeUndefined();
    expect(beyond(run({ products: { inserted: 90 } }), { allowed: shown })).toBeUndefined();
  });

  it('as many rows changed another way is beyond it, naming the kind', () => {
    expect(beyond(run({ products: { updated: 150 } }), { allowed: shown })).toEqual({
      kind: 'change',
      table: 'products',
      change: 'updated',
      rows: 150,
      allowed: 0,
    });
    expect(beyond(run({ products: { inserted: 75, deleted: 75 } }), { allowed: shown })).toMatchObject({
      kind: 'change',
      change: 'deleted',
    });
  });

  it('a mixed run keeps each kind to its own count', () => {
    const mixed = allowanceFor(run({ orders: { updated: 40, deleted: 10 } }));
    expect(beyond(run({ orders: { updated: 40, deleted: 10 } }), { allowed: mixed })).toBeUndefined();
    expect(beyond(run({ orders: { updated: 30, deleted: 20 } }), { allowed: mixed })).toMatchObject({
      kind: 'change',
      change: 'deleted',
      rows: 20,
      allowed: 10,
    });
  });

  it('a stated bound (the effect varies) stays a total per table', () => {
    const stated = allowanceFor(run({ products: { updated: 10 } }, ['random']));
    expect(stated.stated).toBe(true);
    expect(beyond(run({ products: { inserted: 50, deleted: 50 } }), { allowed: stated })).toBeUndefined();
  });
});
