// @vitest-environment jsdom
/**
 * The tools panel reads each field exactly for the type its argument declares, and what it sends
 * is what the chat's `/tool {json}` reader (`commandArguments`, the one the route runs) reads as
 * that value. The panel turned text into a value by `type` alone, lossily and silently: `{"a":1}`
 * typed into an object field was sent as the string "{\"a\":1}", a boolean field sent
 * `text === 'true'` (so `yes` or `True` went as false), a number field's `abc` went as null, and a
 * union, `null`, an untyped argument, an `integer` with a fraction or an `enum` of numbers were not
 * considered at all. Now each is read for its type; what does not read is marked on its field, in
 * the page's language, and nothing is sent; a refused call's arguments filled back are sent again
 * as the same values. The real panel, typed into as a person does.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PAGE_TEXTS } from '../components/texts';
import { ToolsPanel } from '../components/tools-panel';
import { commandArguments, splitCommand } from '../lib/command';
import type { Locale } from '../lib/locale';
import type { ToolInfo } from '../lib/wire';

afterEach(cleanup);
// jsdom draws nothing, so it has no scrolling: the panel scrolls a marked field into view.
Element.prototype.scrollIntoView ??= () => {};

const schema = {
  type: 'object',
  properties: {
    settings: { type: 'object' },
    tags: { type: 'array', items: { type: 'string' } },
    dry_run: { type: 'boolean' },
    note: { type: ['string', 'null'] },
    extra: {},
    anything: true,
    nothing: { type: 'null' },
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    name: { type: 'string' },
  },
};
// An enum of values other than strings, on a tool of its own: the panel took every enum for
// strings and drew them with `plainText`, which a number took the whole panel down with.
const choiceSchema = { type: 'object', properties: { level: { enum: [1, 2, 'max', null] }, mode: { type: 'string' } } };
const SCHEMAS: Record<string, object> = { configure: schema, choose: choiceSchema };

function draw(locale: Locale = 'en', fixing: Record<string, unknown> | null = null, name = 'configure') {
  const onCall = vi.fn<(command: string) => void>();
  const texts = PAGE_TEXTS[locale];
  const tool: ToolInfo = { server: 'ops', name, inputSchema: SCHEMAS[name] as ToolInfo['inputSchema'] };
  render(
    <ToolsPanel
      tools={[tool]}
      error={null}
      disabled={false}
      onCall={onCall}
      fixing={fixing ? { tool: name, args: fixing, marked: {}, nonce: 1 } : null}
      texts={texts}
    />,
  );
  drawn = name;
  return { onCall, texts, user: userEvent.setup({ delay: null }) };
}

/** The tool drawn last: `field`, `call` and `sent` are of its form. */
let drawn = 'configure';
const field = (name: string) => document.getElementById(`tool-${drawn}-${name}`) as HTMLInputElement;

/** Types `text` as is (`{` and `[` are keys to user-event: escaped). */
async function typeInto(user: ReturnType<typeof userEvent.setup>, name: string, text: string): Promise<void> {
  await user.clear(field(name));
  await user.type(
    field(name),
    text.replace(/[{[]/g, (c) => c + c),
  );
}

/** The one command the panel sent, read as the chat's route reads it. */
function sent(onCall: ReturnType<typeof vi.fn<(command: string) => void>>): Record<string, unknown> {
  expect(onCall).toHaveBeenCalledTimes(1);
  const { tool: name, rest } = splitCommand(onCall.mock.calls[0]?.[0] as string);
  expect(name).toBe(drawn);
  const read = commandArguments(name, SCHEMAS[name], rest, 'en');
  if ('message' in read) throw new Error(read.message);
  return read.args;
}

const call = (user: ReturnType<typeof userEvent.setup>, locale: Locale = 'en') =>
  press(user, PAGE_TEXTS[locale].call(drawn));
/** Presses the form's call button and waits until the panel has checked the call (sent it, or marked why not). */
async function press(user: ReturnType<typeof userEvent.setup>, name: string): Promise<void> {
  const button = screen.getByRole('button', { name });
  await user.click(button);
  await waitFor(() => expect(button.closest('form')?.getAttribute('aria-busy')).toBe('false'));
}

const why = (name: string) => document.getElementById(`tool-${drawn}-${name}-why`)?.textContent;

describe('the tools panel reads each field for its declared type', () => {
  it('sends an object, a list, a union, null, any JSON and numbers as the values typed', async () => {
    const { onCall, user } = draw();
    await typeInto(user, 'settings', '{"a":1,"b":[true,null]}');
    await typeInto(user, 'tags', '["x","y"]');
    await typeInto(user, 'note', 'null');
    await typeInto(user, 'extra', '"just text"');
    await typeInto(user, 'anything', '{"deep":{"n":-1.5e3}}');
    await typeInto(user, 'nothing', 'null');
    await typeInto(user, 'replicas', '1e2');
    await typeInto(user, 'ratio', '0.5');
    await typeInto(user, 'name', '{"not":"json"}');
    await call(user);
    expect(sent(onCall)).toEqual({
      settings: { a: 1, b: [true, null] },
      tags: ['x', 'y'],
      note: null,
      extra: 'just text',
      anything: { deep: { n: -1500 } },
      nothing: null,
      replicas: 100,
      ratio: 0.5,
      name: '{"not":"json"}',
    });
  });

  it('offers a boolean as a choice of true and false, and sends the one chosen as a boolean', async () => {
    const { onCall, user, texts } = draw();
    const options = [...field('dry_run').querySelectorAll('option')].map((o) => o.textContent);
    expect(options).toEqual([texts.leaveEmpty, 'true', 'false']);
    await user.selectOptions(field('dry_run'), 'true');
    await call(user);
    expect(sent(onCall)).toEqual({ dry_run: true });
  });

  it('sends an enum value of any JSON type as that value: 2 a number, null null', async () => {
    const { onCall, user } = draw('en', null, 'choose');
    await user.selectOptions(field('level'), '2');
    await call(user);
    expect(sent(onCall)).toEqual({ level: 2 });
    cleanup();
    const again = draw('en', null, 'choose');
    await again.user.selectOptions(field('level'), 'null');
    await call(again.user);
    expect(sent(again.onCall)).toEqual({ level: null });
  });

  it('leaves out a field left empty, and sends {} when all are', async () => {
    const { onCall, user } = draw();
    await call(user);
    expect(onCall).toHaveBeenCalledWith('/configure {}');
  });
});

describe('a field whose text does not read for its type is marked, and nothing is sent', () => {
  const cases: [name: string, typed: string, en: string][] = [
    ['settings', '[1]', 'expected an object ({…}). Nothing was sent.'],
    ['settings', '{"a":1,"a":2}', '$.a: is given twice: JSON keeps only the last value. Nothing was sent.'],
    ['settings', '{a:1}', 'not valid JSON ('],
    ['tags', '{"a":1}', 'expected a list ([…]). Nothing was sent.'],
    ['note', 'hello', 'not valid JSON ('],
    ['note', '3', 'expected text in quotes ("…") or null. Nothing was sent.'],
    ['note', '"\\ud800"', 'holds half of a character'],
    ['extra', '[-0]', '$[0]: -0 cannot be sent exactly'],
    ['nothing', '0', 'expected null. Nothing was sent.'],
    ['replicas', '2.5', 'a whole number is asked for. Nothing was sent.'],
    ['replicas', 'abc', 'not a number: write it as JSON does'],
    [
      'ratio',
      '2.00000000000000001',
      '2.00000000000000001 cannot be sent exactly: it would arrive as 2. Nothing was sent.',
    ],
    ['ratio', '1e400', '1e400 cannot be sent exactly: it would arrive as null'],
    ['ratio', '-0', '-0 cannot be sent exactly'],
    ['ratio', '0x10', 'not a number'],
  ];
  for (const [name, typed, en] of cases)
    it(`${name}: ${typed}`, async () => {
      const { onCall, user } = draw();
      await typeInto(user, 'name', 'kept');
      await typeInto(user, name, typed);
      await call(user);
      expect(onCall).not.toHaveBeenCalled();
      expect(why(name)).toContain(en);
      expect(field(name).getAttribute('aria-invalid')).toBe('true');
      expect(field(name).getAttribute('aria-describedby')).toContain(`tool-configure-${name}-why`);
      expect(why('name')).toBeUndefined();
      await waitFor(() => expect(document.activeElement).toBe(field(name)));
      // Fixed, it is sent, and the mark goes.
      await user.clear(field(name));
      await call(user);
      expect(sent(onCall)).toEqual({ name: 'kept' });
      expect(why(name)).toBeUndefined();
    });

  it('says it in the page language: Chinese on a Chinese page', async () => {
    const { onCall, user } = draw('zh');
    await typeInto(user, 'settings', '[1]');
    await typeInto(user, 'replicas', '2.5');
    await typeInto(user, 'tags', '{"a":1,"a":2}');
    await call(user, 'zh');
    expect(onCall).not.toHaveBeenCalled();
    expect(why('settings')).toBe('应为对象（{…}）。未发送任何请求。');
    expect(why('replicas')).toBe('应为整数。未发送任何请求。');
    expect(why('tags')).toBe('$.a：出现了两次：JSON 只会保留最后一个值。未发送任何请求。');
    expect(document.getElementById('tool-configure-settings-hint')?.textContent).toBe('JSON：对象（{…}）');
  });

  it('names what a JSON field takes under it', () => {
    draw();
    const hint = (name: string) => document.getElementById(`tool-configure-${name}-hint`)?.textContent;
    expect(hint('note')).toBe('JSON: text in quotes ("…") or null');
    expect(hint('extra')).toBe('JSON: any value');
    expect(hint('name')).toBeUndefined();
  });
});

describe('a refused call filled back for fixing', () => {
  const refused: Record<string, unknown>[] = [
    {
      settings: { a: 1, b: [true, null] },
      tags: ['x'],
      dry_run: false,
      note: 'text',
      extra: [1, 'two'],
      anything: null,
      nothing: null,
      replicas: 3,
      ratio: 0.1,
      name: 'order-service',
    },
    // A string field given what its text could not hold, as a refused call may have been.
    { name: '', note: null, dry_run: true, extra: '' },
    { name: 'null' },
    { name: '3', note: '3' },
  ];
  for (const args of refused)
    it(`sends the same values again: ${JSON.stringify(args)}`, async () => {
      const { onCall, user } = draw('en', args);
      await waitFor(() =>
        expect(document.querySelector('details[data-tool="configure"]')?.hasAttribute('open')).toBe(true),
      );
      await call(user);
      expect(sent(onCall)).toEqual(args);
    });

  for (const args of [{ level: 'max', mode: '' }, { level: null, mode: 'fast' }, { level: 1 }])
    it(`sends the same enum value again: ${JSON.stringify(args)}`, async () => {
      const { onCall, user } = draw('en', args, 'choose');
      await waitFor(() =>
        expect(document.querySelector('details[data-tool="choose"]')?.hasAttribute('open')).toBe(true),
      );
      await call(user);
      expect(sent(onCall)).toEqual(args);
    });

  it('keeps a value none of the choices as it is, and marks it when sent', async () => {
    const { onCall, user } = draw('en', { dry_run: 'yes', replicas: '3' });
    await waitFor(() => expect(field('dry_run').value).toBe('"yes"'));
    await call(user);
    expect(onCall).not.toHaveBeenCalled();
    expect(why('dry_run')).toBe('not one of the choices (true, false). Nothing was sent.');
    expect(why('replicas')).toContain('not a number');
    cleanup();
    const choose = draw('en', { level: 7 }, 'choose');
    await waitFor(() => expect(field('level').value).toBe('7'));
    await call(choose.user);
    expect(choose.onCall).not.toHaveBeenCalled();
    expect(why('level')).toBe('not one of the choices (1, 2, max, null). Nothing was sent.');
  });
});
