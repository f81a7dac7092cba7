import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downgrade } from './normalize.js';
import { isRevision, LATEST_REVISION, needsDowngrade, REVISIONS, revisionOf, traitsOf } from './revision.js';
import type { FormSchema } from './wire.js';

describe('revisionOf', () => {
  it.each([
    ['2025-06-18', '2025-06-18'],
    ['2025-11-25', '2025-11-25'],
    ['2026-07-28', '2026-07-28'],
    // older revisions have no form shape of their own: the oldest one every client understands
    ['2025-03-26', '2025-06-18'],
    ['2024-11-05', '2025-06-18'],
    // between two known revisions: the older one's rules still hold
    ['2025-09-01', '2025-06-18'],
    ['2026-01-15', '2025-11-25'],
    // newer than any known: assumed to keep what the latest has
    ['2027-03-01', '2026-07-28'],
    [' 2025-11-25 ', '2025-11-25'],
    ['DRAFT-2026-v1', '2026-07-28'],
    ['draft', '2026-07-28'],
    // unreadable: the oldest, safest shape
    ['', '2025-06-18'],
    ['latest', '2025-06-18'],
    ['2025-11', '2025-06-18'],
    ['20251125', '2025-06-18'],
  ])('%j → %s', (negotiated, expected) => {
    expect(revisionOf(negotiated)).toBe(expected);
  });

  it('agrees with the string comparison servers used before, for every dated version', () => {
    const dated = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(dated, (version) => {
        expect(needsDowngrade(version)).toBe(version < '2025-11-25');
        const before = version >= '2026-07-28' ? '2026-07-28' : version < '2025-11-25' ? '2025-06-18' : '2025-11-25';
        expect(revisionOf(version)).toBe(before);
      }),
    );
  });
});

describe('traitsOf', () => {
  it('says how each revision is asked', () => {
    expect(traitsOf('2025-06-18')).toEqual({ formShape: '2025-06-18', modes: false, asks: 'push' });
    expect(traitsOf('2025-11-25')).toEqual({ formShape: '2025-11-25', modes: true, asks: 'push' });
    expect(traitsOf('2026-07-28')).toEqual({ formShape: '2025-11-25', modes: true, asks: 'input_required' });
    expect(traitsOf('2025-03-26')).toEqual(traitsOf('2025-06-18'));
    expect(traitsOf('2031-01-01')).toEqual(traitsOf(LATEST_REVISION));
  });

  it('downgrades exactly the forms of the revisions that need it', () => {
    const schema: FormSchema = {
      type: 'object',
      properties: { env: { type: 'string', title: 'Env', oneOf: [{ const: 'dev', title: 'Dev' }] } },
    };
    for (const revision of REVISIONS) {
      const changed = downgrade(schema, revision).schema !== schema;
      expect(changed, revision).toBe(needsDowngrade(revision));
    }
  });
});

describe('isRevision', () => {
  it('knows the served revisions and nothing else', () => {
    for (const revision of REVISIONS) expect(isRevision(revision)).toBe(true);
    for (const other of ['2025-03-26', '', 'toString', null, 20251125]) expect(isRevision(other)).toBe(false);
  });
});
