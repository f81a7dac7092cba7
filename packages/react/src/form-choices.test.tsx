// @vitest-environment jsdom
import type { FormSchema } from '@elicitkit/form';
import { cleanup, render, screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { ElicitationForm, type ElicitationFormProps } from './elicitation-form.js';
import { LABELS_ZH } from './labels-zh.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const SIX = ['a', 'b', 'c', 'd', 'e', 'f'].map((v) => ({ const: v, title: `Option ${v.toUpperCase()}` }));

const CHOICES: FormSchema = {
  type: 'object',
  properties: {
    size: { type: 'string', title: 'Size', oneOf: SIX },
    color: { type: 'string', title: 'Color', enum: ['red', 'blue'] },
    channels: {
      type: 'array',
      title: 'Channels',
      items: { type: 'string', enum: ['mail', 'sms', 'push'] },
      minItems: 1,
      maxItems: 2,
    },
    agree: { type: 'boolean', title: 'I agree' },
    newsletter: { type: 'boolean', title: 'Newsletter' },
  },
  required: ['size', 'channels', 'agree'],
};

function draw(props: Partial<ElicitationFormProps> = {}) {
  const handlers = { onSubmit: vi.fn(), onDecline: vi.fn(), onCancel: vi.fn() };
  render(<ElicitationForm prompt={formPrompt(CHOICES)} {...handlers} {...props} />);
  return { ...handlers, user: userEvent.setup({ delay: null }) };
}

describe('<ElicitationForm> choices', () => {
  it('uses a <select> beyond five options: titles shown, values sent', async () => {
    const { user, onSubmit } = draw();
    const size = screen.getByRole('combobox', { name: 'Size' }) as HTMLSelectElement;
    expect(size.value).toBe('');
    expect(within(size).getByRole('option', { name: 'Choose…' })).toMatchObject({ disabled: true });
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(document.getElementById(size.getAttribute('aria-errormessage') ?? '')?.textContent).toBe(
      '"Size" is required.',
    );
    await user.selectOptions(size, 'Option E');
    expect(size.value).toBe('e');
    expect(size.getAttribute('aria-invalid')).toBeNull();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('offers "No answer" for an optional single select, and leaves it out when chosen', async () => {
    const { user, onSubmit } = draw();
    const color = within(screen.getByRole('group', { name: 'Color' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Size' }), 'c');
    await user.click(screen.getByRole('checkbox', { name: 'mail' }));
    await user.click(color.getByRole('radio', { name: 'blue' }));
    await user.click(color.getByRole('radio', { name: 'No answer' }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    // "I agree" is a confirmation left unticked: the first Submit warns, the second sends.
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toContain('a confirmation is unticked');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ size: 'c', channels: ['mail'], agree: false });
  });

  it('lets the person choose an option whose value is the empty string, apart from "No answer"', async () => {
    const none = { const: '', title: 'Default branch' };
    const schema: FormSchema = {
      type: 'object',
      properties: {
        branch: { type: 'string', title: 'Branch', oneOf: [none, { const: 'main', title: 'Main' }] },
        base: { type: 'string', title: 'Base', oneOf: [none, ...SIX] },
        tag: { type: 'string', title: 'Tag', oneOf: [none, { const: 'v1', title: 'v1' }] },
      },
      required: ['branch', 'base'],
    };
    const { user, onSubmit } = draw({ prompt: formPrompt(schema) });
    const branch = within(screen.getByRole('group', { name: 'Branch' }));
    await user.click(branch.getByRole('radio', { name: 'Default branch' }));
    expect(branch.getByRole('radio', { name: 'Default branch' })).toMatchObject({ checked: true });
    const base = screen.getByRole('combobox', { name: 'Base' }) as HTMLSelectElement;
    await user.selectOptions(base, 'Default branch');
    expect(base.selectedOptions[0]?.textContent).toBe('Default branch');
    const tag = within(screen.getByRole('group', { name: 'Tag' }));
    expect(tag.getByRole('radio', { name: 'No answer' })).toMatchObject({ checked: true });
    expect(tag.getByRole('radio', { name: 'Default branch' })).toMatchObject({ checked: false });
    await user.click(tag.getByRole('radio', { name: 'Default branch' }));
    expect(tag.getByRole('radio', { name: 'No answer' })).toMatchObject({ checked: false });
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ branch: '', base: '', tag: '' });
  });

  it('keeps a multi-select within minItems and maxItems', async () => {
    const { user, onSubmit } = draw();
    const channels = within(screen.getByRole('group', { name: 'Channels' }));
    const box = (name: string) => channels.getByRole('checkbox', { name }) as HTMLInputElement;
    await user.click(box('push'));
    await user.click(box('mail'));
    expect(box('sms').disabled).toBe(true);
    await user.click(box('sms'));
    expect(box('sms').checked).toBe(false);
    await user.click(box('push'));
    await user.click(box('mail'));
    expect(box('mail').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('"Channels" needs at least 1 selection.')).toBeTruthy();
    await user.click(box('sms'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Size' }), 'a');
    await user.click(screen.getByRole('checkbox', { name: 'Newsletter' }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ size: 'a', channels: ['sms'], agree: false, newsletter: true });
  });

  it('is keyboard-only usable: Tab through, arrows in a radio group, space on checkboxes, Enter submits', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        color: { type: 'string', title: 'Color', enum: ['red', 'green', 'blue'], default: 'red' },
        agree: { type: 'boolean', title: 'I agree' },
        ticket: { type: 'string', title: 'Ticket' },
      },
    };
    // user-event walks a radio group with CSS.escape, which jsdom does not provide.
    vi.stubGlobal('CSS', { escape: (name: string) => name.replace(/[^\w-]/g, '\\$&') });
    const { user, onSubmit } = draw({ prompt: formPrompt(schema) });
    expect(document.activeElement).toBe(screen.getByRole('radio', { name: 'red' }));
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('radio', { name: 'green' })).toMatchObject({ checked: true });
    await user.tab();
    await user.keyboard(' ');
    await user.tab();
    await user.keyboard('T-1{Enter}');
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ color: 'green', agree: true, ticket: 'T-1' });
  });

  it('radio group with nothing chosen: one Tab stop, arrows move and choose, Tab leaves the group', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        env: { type: 'string', title: 'Env', enum: ['dev', 'staging', 'prod'] },
        ticket: { type: 'string', title: 'Ticket' },
      },
      required: ['env'],
    };
    vi.stubGlobal('CSS', { escape: (name: string) => name.replace(/[^\w-]/g, '\\$&') });
    const { user } = draw({ prompt: formPrompt(schema) });
    const radio = (name: string) => screen.getByRole('radio', { name }) as HTMLInputElement;
    expect([radio('dev'), radio('staging'), radio('prod')].map((r) => r.tabIndex)).toEqual([0, -1, -1]);
    expect(document.activeElement).toBe(radio('dev'));
    // Tab from the first, unchosen radio leaves the group (it used to land on the second radio).
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Ticket' }));
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(radio('dev'));
    await user.keyboard('{ArrowUp}');
    expect(radio('prod').checked).toBe(true);
    expect(document.activeElement).toBe(radio('prod'));
    expect([radio('dev'), radio('staging'), radio('prod')].map((r) => r.tabIndex)).toEqual([-1, -1, 0]);
    await user.keyboard('{ArrowRight}');
    expect(radio('dev').checked).toBe(true);
  });

  it('speaks Chinese with LABELS_ZH, validation messages included', async () => {
    const schema: FormSchema = {
      type: 'object',
      properties: {
        name: { type: 'string', title: '名称', minLength: 2 },
        env: {
          type: 'string',
          title: '环境',
          oneOf: [
            { const: 'dev', title: '开发 (dev)' },
            { const: 'prod', title: '生产 (prod)' },
          ],
        },
        replicas: { type: 'integer', title: '副本数', maximum: 9 },
      },
      required: ['name', 'env'],
    };
    const { user, onSubmit } = draw({
      prompt: formPrompt(schema, { message: '请选择部署环境并填写名称。' }),
      labels: LABELS_ZH,
    });
    const dialog = screen.getByRole('dialog', { name: 'Ops Desk 请求你填写' });
    expect(dialog.getAttribute('lang')).toBe('zh-CN');
    expect(screen.getByText('请选择部署环境并填写名称。')).toBeTruthy();
    expect(screen.getByText('标有 * 的为必填项。')).toBeTruthy();
    await user.type(screen.getByLabelText('名称'), '张');
    await user.type(screen.getByLabelText('副本数'), '十');
    await user.click(screen.getByRole('button', { name: '提交' }));
    expect(screen.getByRole('alert').textContent).toBe('尚未发送：请先修正下方标出的 3 个字段。');
    expect(screen.getByText('“名称”至少需要 2 个字符。')).toBeTruthy();
    expect(screen.getByText('“环境”为必填项。')).toBeTruthy();
    expect(screen.getByText('“副本数”需要整数，例如 3。')).toBeTruthy();
    await user.type(screen.getByLabelText('名称'), '三');
    await user.clear(screen.getByLabelText('副本数'));
    await user.click(screen.getByRole('radio', { name: '生产 (prod)' }));
    await user.click(screen.getByRole('button', { name: '提交' }));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ name: '张三', env: 'prod' });
    expect(screen.getByRole('button', { name: '拒绝' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '取消' })).toBeTruthy();
  });
  it('marks required choices with *, and a confirmation, but not a plain required checkbox (unticked answers "no")', () => {
    draw();
    const marks = (text: string) =>
      screen.getByText(text, { selector: 'label, legend' }).closest('.ek-field')?.querySelector('.ek-required');
    expect(marks('Size')).not.toBeNull();
    expect(marks('Channels')).not.toBeNull();
    expect(marks('Color')).toBeNull();
    expect(marks('I agree')).not.toBeNull();
    expect(screen.getByText('Tick to confirm: without it the request is refused.')).toBeTruthy();
    cleanup();
    const only: FormSchema = { type: 'object', properties: { ok: { type: 'boolean', title: 'OK' } }, required: ['ok'] };
    render(<ElicitationForm prompt={formPrompt(only)} onSubmit={vi.fn()} onDecline={vi.fn()} onCancel={vi.fn()} />);
    expect(screen.queryByText(/are required/)).toBeNull();
  });
});
