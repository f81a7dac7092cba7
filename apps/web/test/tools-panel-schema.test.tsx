// @vitest-environment jsdom
/**
 * The tools panel checks what it sends against the tool's whole declared input schema before
 * sending: the items of a list, an object's own properties, `required` (an empty required select
 * was sent, and refused by the server), enums, bounds, lengths, patterns, formats, `$ref`s — and a
 * field that breaks any of it is marked, saying what and where in the page's language, and nothing
 * is sent. The panel read each field's type alone, so `[1]` for a list of text or `{"cpu":64}` for
 * an object whose `cpu` is at most 8 went to the server, which refused them; a required choice
 * left empty had no `required` and went too. The real panel, typed into as a person does.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAGE_TEXTS } from '../components/texts';
import { ToolsPanel } from '../components/tools-panel';
import type { Locale } from '../lib/locale';
import type { ToolInfo } from '../lib/wire';

afterEach(cleanup);
Element.prototype.scrollIntoView ??= () => {};

const SCHEMA = {
  type: 'object',
  properties: {
    service: { type: 'string', pattern: '^[a-z][a-z-]*$', minLength: 3, maxLength: 20 },
    env: { enum: ['dev', 'prod'] },
    confirm: { type: 'boolean' },
    replicas: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.25 },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 3, uniqueItems: true },
    limits: {
      type: 'object',
      properties: { cpu: { type: 'number', maximum: 8 }, memory: { type: 'string', format: 'email' } },
      required: ['cpu'],
      additionalProperties: false,
    },
    target: { $ref: '#/$defs/target' },
    contact: { type: 'string', format: 'email' },
  },
  required: ['service', 'env', 'confirm'],
  $defs: { target: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
};

function draw(locale: Locale = 'en', schema: object = SCHEMA) {
  const onCall = vi.fn<(command: string) => void>();
  const tool: ToolInfo = { server: 'ops', name: 'deploy', inputSchema: schema as ToolInfo['inputSchema'] };
  render(<ToolsPanel tools={[tool]} error={null} disabled={false} onCall={onCall} texts={PAGE_TEXTS[locale]} />);
  return { onCall, user: userEvent.setup({ delay: null }) };
}

const field = (name: string) => document.getElementById(`tool-deploy-${name}`) as HTMLInputElement;
const why = (name: string) =>
  document.getElementById(name === 'form' ? 'tools-why-deploy' : `tool-deploy-${name}-why`)?.textContent;
const call = (user: ReturnType<typeof userEvent.setup>, locale: Locale = 'en') =>
  press(user, PAGE_TEXTS[locale].call('deploy'));
/** Presses the form's call button and waits until the panel has checked the call (sent it, or marked why not). */
async function press(user: ReturnType<typeof userEvent.setup>, name: string): Promise<void> {
  const button = screen.getByRole('button', { name });
  await user.click(button);
  await waitFor(() => expect(button.closest('form')?.getAttribute('aria-busy')).toBe('false'));
}

async function typeInto(user: ReturnType<typeof userEvent.setup>, name: string, text: string): Promise<void> {
  await user.clear(field(name));
  await user.type(
    field(name),
    text.replace(/[{[]/g, (c) => c + c),
  );
}

/** A call that passes every check: each case changes one field from it. */
async function fillValid(user: ReturnType<typeof userEvent.setup>): Promise<void> {
  await typeInto(user, 'service', 'order-service');
  await user.selectOptions(field('env'), '"prod"');
  await user.selectOptions(field('confirm'), 'true');
}

describe('the whole declared schema is checked before anything is sent', () => {
  it('a call that fits is sent as typed', async () => {
    const { onCall, user } = draw();
    await fillValid(user);
    await typeInto(user, 'replicas', '3');
    await typeInto(user, 'ratio', '0.75');
    await typeInto(user, 'tags', '["a","b"]');
    await typeInto(user, 'limits', '{"cpu":2,"memory":"ops@example.com"}');
    await typeInto(user, 'target', '{"id":7}');
    await call(user);
    expect(onCall.mock.calls).toEqual([
      [
        '/deploy {"service":"order-service","env":"prod","confirm":true,"replicas":3,"ratio":0.75,"tags":["a","b"],"limits":{"cpu":2,"memory":"ops@example.com"},"target":{"id":7}}',
      ],
    ]);
  });

  it('a required choice is required: the select says so, and left empty it is marked, nothing sent', async () => {
    const { onCall, user } = draw();
    expect(field('env').required).toBe(true);
    expect(field('confirm').required).toBe(true);
    await typeInto(user, 'service', 'order-service');
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('env')).toBe('required: choose one. Nothing was sent.');
    expect(why('confirm')).toBe('required: choose one. Nothing was sent.');
    expect(field('env').getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(field('env')));
    expect(why('service')).toBeUndefined();
  });

  it('a required text left empty is marked in the page, not by the browser', async () => {
    const { onCall, user } = draw();
    await user.selectOptions(field('env'), '"dev"');
    await user.selectOptions(field('confirm'), 'false');
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('service')).toBe('required: fill it in. Nothing was sent.');
  });

  const cases: [name: string, typed: string, en: string][] = [
    ['service', 'Order', 'does not match the pattern ^[a-z][a-z-]*$. Nothing was sent.'],
    ['service', 'ab', 'at least 3 characters. Nothing was sent.'],
    ['service', 'a'.repeat(21), 'at most 20 characters. Nothing was sent.'],
    ['replicas', '0', 'at least 1. Nothing was sent.'],
    ['replicas', '11', 'at most 10. Nothing was sent.'],
    ['ratio', '0', 'more than 0. Nothing was sent.'],
    ['ratio', '0.3', 'a multiple of 0.25. Nothing was sent.'],
    ['tags', '["ok",3]', '$[1]: expected text in quotes ("…"). Nothing was sent.'],
    ['tags', '["ok","NO"]', '$[1]: does not match the pattern ^[a-z]+$. Nothing was sent.'],
    ['tags', '["a","b","c","d"]', 'at most 3 items. Nothing was sent.'],
    ['tags', '["a","a"]', 'items 0 and 1 are the same: each must be different. Nothing was sent.'],
    ['limits', '{"cpu":64}', '$.cpu: at most 8. Nothing was sent.'],
    ['limits', '{"memory":"x@y.z"}', 'missing "cpu", which is required. Nothing was sent.'],
    ['limits', '{"cpu":1,"gpu":1}', 'has "gpu", which it does not take. Nothing was sent.'],
    ['limits', '{"cpu":1,"memory":"lots"}', '$.memory: not a valid email. Nothing was sent.'],
    ['target', '{"id":"x"}', '$.id: expected a whole number. Nothing was sent.'],
    ['target', '{}', 'missing "id", which is required. Nothing was sent.'],
    ['contact', 'nobody', 'not a valid email. Nothing was sent.'],
  ];
  for (const [name, typed, en] of cases)
    it(`${name}: ${typed}`, async () => {
      const { onCall, user } = draw();
      await fillValid(user);
      await typeInto(user, name, typed);
      await call(user);
      expect(onCall).not.toHaveBeenCalled();
      expect(why(name)).toBe(en);
      expect(field(name).getAttribute('aria-invalid')).toBe('true');
      expect(why('service') === undefined || name === 'service').toBe(true);
      await waitFor(() => expect(document.activeElement).toBe(field(name)));
      // Fixed (emptied: each is optional but service), it is sent, and the mark goes.
      if (name === 'service') await typeInto(user, 'service', 'order-service');
      else await user.clear(field(name));
      await call(user);
      expect(onCall).toHaveBeenCalledWith('/deploy {"service":"order-service","env":"prod","confirm":true}');
      expect(why(name)).toBeUndefined();
    });

  it('marks every field that breaks the schema at once, in Chinese on a Chinese page', async () => {
    const { onCall, user } = draw('zh');
    await typeInto(user, 'service', 'Order');
    await typeInto(user, 'replicas', '0');
    await typeInto(user, 'tags', '["ok",3]');
    await typeInto(user, 'limits', '{"cpu":64,"gpu":1}');
    await typeInto(user, 'target', '{}');
    await call(user, 'zh');
    expect(onCall).not.toHaveBeenCalled();
    expect(why('service')).toBe('与模式 ^[a-z][a-z-]*$ 不匹配。未发送任何请求。');
    expect(why('env')).toBe('必填：请选择一项。未发送任何请求。');
    expect(why('confirm')).toBe('必填：请选择一项。未发送任何请求。');
    expect(why('replicas')).toBe('应至少为 1。未发送任何请求。');
    expect(why('tags')).toBe('$[1]：应为带引号的文本（"…"）。未发送任何请求。');
    expect(why('limits')).toBe('含有不接受的属性 "gpu"；$.cpu：应至多为 8。未发送任何请求。');
    expect(why('target')).toBe('缺少必填的 "id"。未发送任何请求。');
  });

  it('says what no single field can: a rule of the whole call, on the form', async () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      anyOf: [{ required: ['a'] }, { required: ['b'] }],
    };
    const { onCall, user } = draw('en', schema);
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('form')).toBe('the call does not fit any of the shapes the tool takes (anyOf). Nothing was sent.');
    await typeInto(user, 'b', 'x');
    await call(user);
    expect(onCall).toHaveBeenCalledWith('/deploy {"b":"x"}');
    expect(why('form')).toBeUndefined();
    cleanup();
    const zh = draw('zh', schema);
    await call(zh.user, 'zh');
    expect(why('form')).toBe('这次调用不符合该工具接受的任何一种形式（anyOf）。未发送任何请求。');
  });

  it("reads only the call's own properties: an argument named constructor is missing when not given", async () => {
    const { onCall, user } = draw('en', {
      type: 'object',
      properties: {
        o: { type: 'object', properties: { constructor: { type: 'string' } }, required: ['constructor'] },
        toString: { type: 'number' },
      },
    });
    await typeInto(user, 'o', '{}');
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('o')).toBe('missing "constructor", which is required. Nothing was sent.');
    expect(why('toString')).toBeUndefined();
    await typeInto(user, 'o', '{"constructor":"x"}');
    await call(user);
    expect(onCall).toHaveBeenCalledWith('/deploy {"o":{"constructor":"x"}}');
  });

  it('a pattern a backtracking RegExp would take hours on is judged at once (the tab never freezes)', async () => {
    const { onCall, user } = draw('en', {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' }, near: { type: 'string', pattern: '^(?=a)a+$' } },
    });
    await typeInto(user, 'code', `${'a'.repeat(40)}!`);
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('code')).toBe('does not match the pattern ^(a+)+$. Nothing was sent.');
    // A look-around is beyond a linear engine: not checked here, the server judges it.
    await typeInto(user, 'code', 'aaa');
    await typeInto(user, 'near', 'b');
    await call(user);
    expect(onCall).toHaveBeenCalledWith('/deploy {"code":"aaa","near":"b"}');
  });

  it('reads a schema that declares draft-07 as draft-07', async () => {
    const { onCall, user } = draw('en', {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'integer', maximum: 5 } },
    });
    await typeInto(user, 'n', '6');
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('n')).toBe('at most 5. Nothing was sent.');
  });
});
