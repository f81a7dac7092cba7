import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldSchema } from '../../test/arbitraries.js';
import { describeField } from '../fields.js';
import type { JsonObject } from '../json.js';
import { BOOLEAN } from './boolean.js';
import { MULTI_SELECT } from './multi-select.js';
import { NUMBER } from './number.js';
import { type FieldKind, specForWire, specOf } from './registry.js';
import { SELECT } from './select.js';
import { FORMATS, TEXT } from './text/index.js';

const SPECS = [TEXT, NUMBER, BOOLEAN, SELECT, MULTI_SELECT];

describe('the kind registry', () => {
  it('gives exactly one kind to every shape of the restricted schema', () => {
    fc.assert(
      fc.property(fieldSchema, (field) => {
        expect(SPECS.filter((spec) => spec.claims(field as JsonObject))).toHaveLength(1);
      }),
    );
  });

  it('claims nothing outside the subset, so the generic parse can name it', () => {
    for (const raw of [{ type: 'object' }, { type: 'null' }, { type: ['string'] }, {}, { enum: ['a'] }]) {
      expect(specForWire(raw as JsonObject)).toBeUndefined();
    }
  });

  it('hands each model back to the kind that described it', () => {
    fc.assert(
      fc.property(fieldSchema, (field) => {
        const model = describeField('f', field, false);
        expect(specOf(model)).toBe(specForWire(field));
      }),
    );
  });

  it('maps "text" and every format of the format table to the text kind', () => {
    const textKinds: FieldKind[] = ['text', ...(Object.keys(FORMATS) as FieldKind[])];
    for (const kind of textKinds) expect(specOf({ kind } as never)).toBe(TEXT);
  });

  it('refuses a model of no known kind, prototype names included', () => {
    for (const kind of ['password', 'toString', '__proto__']) {
      expect(() => specOf({ kind, name: 'f', label: 'F', required: false } as never)).toThrow(
        `Unknown field kind ${JSON.stringify(kind)}.`,
      );
    }
  });
});
