import { field, form } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import type { Question } from './channel.js';
import { inputRequest, pushRequest } from './wire.js';

const env = form({
  env: field.select(
    [
      { value: 'dev', title: 'Development' },
      { value: 'prod', title: 'Production' },
    ],
    { title: 'Environment', default: 'dev' },
  ),
});
const tags = form({ tags: field.multiSelect([{ value: 'x', title: 'X' }], { title: 'Tags' }) });
const ask = (schema = env.schema): Question => ({ kind: 'form', message: 'Which environment?', schema });
const page: Question = { kind: 'url', message: 'Set the password.', url: 'https://example.com/p/1' };

describe('one question, its shape per revision', () => {
  it('2025-11-25: mode form, titled oneOf, defaults kept', () => {
    const shaped = pushRequest(ask(), '2025-11-25');
    expect(shaped).toEqual({
      ok: true,
      wire: { params: { mode: 'form', message: 'Which environment?', requestedSchema: env.schema } },
    });
  });

  it('2025-06-18: no mode, enum + enumNames, only boolean defaults', () => {
    const shaped = pushRequest(ask(), '2025-06-18');
    if (!shaped.ok) throw new Error(shaped.detail);
    expect(shaped.wire.params).not.toHaveProperty('mode');
    expect(shaped.wire.params).toMatchObject({
      requestedSchema: { properties: { env: { enum: ['dev', 'prod'], enumNames: ['Development', 'Production'] } } },
    });
    const params = shaped.wire.params as { requestedSchema?: { properties: Record<string, object> } };
    expect(params.requestedSchema?.properties.env).not.toHaveProperty('default');
  });

  it('2025-06-18 cannot show a multi-select or a URL: why, and nothing to send', () => {
    expect(pushRequest(ask(tags.schema), '2025-06-18')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('multi-select'),
    });
    expect(pushRequest(page, '2025-06-18')).toEqual({ ok: false, detail: 'revision 2025-06-18 has no URL mode.' });
  });

  it('2025-11-25 URL mode carries a fresh elicitationId, the one it is tracked by', () => {
    const a = pushRequest(page, '2025-11-25');
    const b = pushRequest(page, '2025-11-25');
    if (!a.ok || !b.ok) throw new Error('expected URL mode to be expressible');
    expect(a.wire.params).toMatchObject({ mode: 'url', url: page.url, elicitationId: a.wire.elicitationId });
    expect(a.wire.elicitationId).not.toBe(b.wire.elicitationId);
  });

  it('2026-07-28: an input_required entry, URL mode without an id', () => {
    expect(inputRequest(ask())).toMatchObject({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Which environment?', requestedSchema: env.schema },
    });
    const url = inputRequest(page) as { params: Record<string, unknown> };
    expect(url.params).toMatchObject({ mode: 'url', url: page.url });
    expect(url.params).not.toHaveProperty('elicitationId');
  });
});
