/**
 * What a confirmation covers, judged on executions as the shop measures them: a counted allowance
 * holds each table's rows by kind, so a run that changes as many rows another way (an upsert that
 * updates where it inserted, a delete where it updated) is beyond it; fewer rows of a kind stay
 * within. A bound stated in words (a statement whose effect varies) stays a total per table.
 */
import { describe, expect, it } from 'vitest';
import { allowanceFor, beyond, type Execution, roundedUp, type TableEffect } from './effect.js';

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

  it('a stated bound covers what its run touched, in round figures, where that is more than the table holds', () => {
    const stated = allowanceFor(
      run({ products: { before: 10, inserted: 300 }, orders: { before: 1200, updated: 7 } }, ['random']),
    );
    expect(stated.tables).toEqual({ products: 500, orders: 1200 });
    expect(beyond(run({ products: { inserted: 500 } }), { allowed: stated })).toBeUndefined();
    expect(beyond(run({ products: { inserted: 501 } }), { allowed: stated })).toMatchObject({
      kind: 'rows',
      allowed: 500,
    });
  });

  it.each([
    [0, 1],
    [1, 1],
    [2, 2],
    [3, 5],
    [6, 10],
    [101, 200],
    [300, 500],
    [501, 1000],
    [1000, 1000],
    [1001, 2000],
    [123_456, 200_000],
  ])('roundedUp(%i) is %i', (n, up) => expect(roundedUp(n)).toBe(up));
});
