import { describe, expect, it } from 'vitest';
import { roundTrip, type WireRevision } from '../../../test/wire.js';
import type { FormSchema } from '../../wire.js';
import { FORMATS, type StringFormat } from './formats.js';

const REVISIONS: WireRevision[] = ['2025-11-25', '2026-07-28'];
/** A valid value of every format in the table: a new format needs one here. */
const EXAMPLE = {
  email: 'ann@example.com',
  uri: 'https://example.com/docs',
  date: '2026-03-01',
  'date-time': '2026-03-01T09:30:00Z',
} satisfies Record<StringFormat, string>;

const formOf = (format: string): FormSchema =>
  ({ type: 'object', properties: { v: { type: 'string', title: 'Value', format } }, required: ['v'] }) as FormSchema;

describe('string formats on the wire, between a real SDK server and client', () => {
  it.each(REVISIONS)(
    'every format of the table reaches the client and its answer comes back (%s)',
    async (revision) => {
      for (const format of Object.keys(FORMATS) as StringFormat[]) {
        const trip = await roundTrip(revision, formOf(format), { v: EXAMPLE[format] });
        expect(trip.seen, format).toMatchObject({ requestedSchema: formOf(format) });
        expect(trip.outcome, format).toEqual({ accepted: { v: EXAMPLE[format] } });
      }
    },
  );

  // Why the table holds these four and no more: the protocol's restricted schema names them, and
  // the SDK client refuses any other format (-32602) before a renderer could see it.
  it.each(REVISIONS)(
    'a format outside the protocol (time) is refused before any handler runs (%s)',
    async (revision) => {
      const trip = await roundTrip(revision, formOf('time'), { v: '09:30' });
      expect(trip.seen).toBeUndefined();
      expect(trip.outcome).toEqual({ error: -32602 });
    },
  );
});
