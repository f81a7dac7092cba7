/**
 * The renderer conformance suite, written once and run against every renderer (terminal,
 * scripted, React). A scenario says what the person does, as intents ("choose prod", "type 3",
 * "toggle x", "edit ticket", "decline"); each renderer's driver turns intents into keystrokes,
 * clicks or script entries, and the suite checks the answer the renderer returns.
 */
import type { FormContent, FormSchema } from '@elicitkit/form';
import { describe, expect, it } from 'vitest';
import { checkFormRequest } from '../checks/form.js';
import { inspectUrl } from '../checks/url.js';
import type { FormAnswer, FormPrompt, UrlAnswer, UrlPrompt } from '../types.js';

/** What the person does with one field. */
export type FieldStep =
  /** Single select: pick the option with this value. */
  | { field: string; choose: string }
  /** Multi select: flip these options (pre-selected defaults included). */
  | { field: string; toggle: string[] }
  /** Text, number, date…: replace what is there with this text. `rejected`: the renderer must refuse it inline. */
  | { field: string; type: string; rejected?: true }
  | { field: string; set: boolean }
  /** Leave the pre-filled value (the default) as it is. */
  | { field: string; keep: true };

/** What the person does, in order. Fields without a step are kept as pre-filled. */
export type Step =
  | FieldStep
  /** From the review step, change one answer. */
  | { edit: FieldStep }
  | { submit: true }
  /** Refuse to share (at the start, or at the review step). */
  | { decline: true }
  /** Abandon the whole operation (anywhere). */
  | { cancel: true }
  /** The server withdraws the question (the renderer's signal aborts). */
  | { withdraw: true };

export type UrlChoice = 'open' | 'decline' | 'cancel' | 'withdraw';

export interface RendererDriver {
  /** Whether the renderer validates a field as it is typed (a person can retry on the spot). */
  inlineValidation: boolean;
  /** Whether the renderer has a review step where answers can be edited. */
  reviewEdit: boolean;
  /**
   * Whether the renderer shows every default pre-filled (its `prefillsDefaults`), so that a default
   * the person clears is sent cleared.
   */
  prefillsDefaults: boolean;
  answerForm(prompt: FormPrompt, steps: Step[]): Promise<FormAnswer>;
  answerUrl(prompt: UrlPrompt, choice: UrlChoice): Promise<UrlAnswer>;
}

const SERVER = { name: 'opsdesk', version: '1.0.0', title: 'Ops Desk' };

/** A prompt as `attach` builds it. */
export function formPrompt(
  requestedSchema: FormSchema,
  message = 'Which release should be deployed, and where?',
): FormPrompt {
  const checked = checkFormRequest({ message, requestedSchema });
  if (!checked.ok) throw new Error(checked.message);
  const { schema, fields, findings, secretFields } = checked;
  return { mode: 'form', message, server: SERVER, findings, schema, fields, secretFields, attempt: 1 };
}

export function urlPrompt(url: string, message = 'Set your password on the secure page to finish.'): UrlPrompt {
  const seen = inspectUrl(url);
  if (!seen.ok) throw new Error(seen.message);
  const { url: href, host, hostIndex, warnings } = seen;
  return { mode: 'url', message, server: SERVER, findings: [], url: href, host, hostIndex, warnings };
}

const ENV = {
  type: 'string',
  title: '环境',
  oneOf: [
    { const: 'dev', title: '开发 (dev)' },
    { const: 'staging', title: '预发 (staging)' },
    { const: 'prod', title: '生产 (prod)' },
  ],
} as const;

/** Every field kind, each with a default, in one form. */
export const EVERY_KIND: FormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 20, default: 'Ann' },
    email: { type: 'string', title: 'Email', format: 'email', default: 'ann@example.com' },
    site: { type: 'string', title: 'Site', format: 'uri', default: 'https://example.com' },
    day: { type: 'string', title: 'Day', format: 'date', default: '2026-03-01' },
    at: { type: 'string', title: 'At', format: 'date-time', default: '2026-03-01T09:30:00Z' },
    ratio: { type: 'number', title: 'Ratio', minimum: 0, maximum: 1, default: 0.5 },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 9, default: 2 },
    notify: { type: 'boolean', title: 'Notify the team', default: false },
    env: { ...ENV, oneOf: [...ENV.oneOf], default: 'dev' },
    region: {
      type: 'string',
      title: 'Region',
      enum: ['eu', 'us', 'ap'],
      enumNames: ['Europe', 'America', 'Asia'],
      default: 'eu',
    },
    tags: {
      type: 'array',
      title: 'Tags',
      items: {
        anyOf: [
          { const: 'x', title: 'Ex' },
          { const: 'y', title: 'Why' },
          { const: 'z', title: 'Zed' },
        ],
      },
      maxItems: 2,
      default: ['x'],
    },
  },
  required: ['name', 'env'],
};

const DEFAULTS: FormContent = {
  name: 'Ann',
  email: 'ann@example.com',
  site: 'https://example.com',
  day: '2026-03-01',
  at: '2026-03-01T09:30:00Z',
  ratio: 0.5,
  replicas: 2,
  notify: false,
  env: 'dev',
  region: 'eu',
  tags: ['x'],
};

const DEPLOY: FormSchema = {
  type: 'object',
  properties: {
    env: { ...ENV, oneOf: [...ENV.oneOf] },
    ticket: { type: 'string', title: 'Release ticket', minLength: 4 },
    note: { type: 'string', title: 'Note' },
  },
  required: ['env', 'ticket'],
};

export function rendererConformance(name: string, makeDriver: () => RendererDriver): void {
  // Scenarios a renderer has no means for are not registered at all (rather than reported skipped).
  const { inlineValidation, reviewEdit, prefillsDefaults } = makeDriver();
  describe(`renderer conformance: ${name}`, () => {
    it('answers every field kind, titles and Chinese text included', async () => {
      const answer = await makeDriver().answerForm(formPrompt(EVERY_KIND), [
        { field: 'name', type: '张三' },
        { field: 'email', type: 'zhang@example.cn' },
        { field: 'site', type: 'https://example.cn/docs' },
        { field: 'day', type: '2026-02-28' },
        { field: 'at', type: '2026-02-28T08:00:00+08:00' },
        { field: 'ratio', type: '0.25' },
        { field: 'replicas', type: '3' },
        { field: 'notify', set: true },
        { field: 'env', choose: 'prod' },
        { field: 'region', choose: 'ap' },
        { field: 'tags', toggle: ['x', 'z'] },
        { submit: true },
      ]);
      expect(answer).toEqual({
        action: 'accept',
        content: {
          name: '张三',
          email: 'zhang@example.cn',
          site: 'https://example.cn/docs',
          day: '2026-02-28',
          at: '2026-02-28T08:00:00+08:00',
          ratio: 0.25,
          replicas: 3,
          notify: true,
          env: 'prod',
          region: 'ap',
          tags: ['z'],
        },
      });
    });

    it('keeps every default the person leaves alone', async () => {
      const answer = await makeDriver().answerForm(formPrompt(EVERY_KIND), [{ submit: true }]);
      expect(answer).toEqual({ action: 'accept', content: DEFAULTS });
    });

    it('shows a confirmation the server pre-ticked (EK06) unticked, and sends it unticked if left alone', async () => {
      const preticked: FormSchema = {
        type: 'object',
        properties: { confirmed: { type: 'boolean', title: 'I confirm this production deploy', default: true } },
      };
      const answer = await makeDriver().answerForm(formPrompt(preticked), [{ submit: true }]);
      expect(answer).toEqual({ action: 'accept', content: { confirmed: false } });
    });

    if (prefillsDefaults) {
      it('sends a default the person cleared as cleared, not put back', async () => {
        const answer = await makeDriver().answerForm(formPrompt(EVERY_KIND), [
          { field: 'site', type: '' },
          { field: 'ratio', type: '' },
          { submit: true },
        ]);
        const { site: _site, ratio: _ratio, ...rest } = DEFAULTS;
        expect(answer).toEqual({ action: 'accept', content: rest });
      });
    }

    it('leaves an optional field without a default out of the answer', async () => {
      const answer = await makeDriver().answerForm(formPrompt(DEPLOY), [
        { field: 'env', choose: 'staging' },
        { field: 'ticket', type: 'REL-1001' },
        { submit: true },
      ]);
      expect(answer).toEqual({ action: 'accept', content: { env: 'staging', ticket: 'REL-1001' } });
    });

    it('declines at the start, without filling anything in', async () => {
      expect(await makeDriver().answerForm(formPrompt(DEPLOY), [{ decline: true }])).toEqual({ action: 'decline' });
    });

    it('declines after filling in the form', async () => {
      const answer = await makeDriver().answerForm(formPrompt(DEPLOY), [
        { field: 'env', choose: 'prod' },
        { field: 'ticket', type: 'REL-1001' },
        { decline: true },
      ]);
      expect(answer).toEqual({ action: 'decline' });
    });

    it('cancels at the start and in the middle of the form', async () => {
      expect(await makeDriver().answerForm(formPrompt(DEPLOY), [{ cancel: true }])).toEqual({ action: 'cancel' });
      const midway = await makeDriver().answerForm(formPrompt(DEPLOY), [
        { field: 'env', choose: 'prod' },
        { cancel: true },
      ]);
      expect(midway).toEqual({ action: 'cancel' });
    });

    it('answers cancel when the question is withdrawn', async () => {
      expect(await makeDriver().answerForm(formPrompt(DEPLOY), [{ withdraw: true }])).toEqual({ action: 'cancel' });
    });

    if (inlineValidation)
      it('refuses invalid input inline and takes the corrected value', async () => {
        const answer = await makeDriver().answerForm(formPrompt(EVERY_KIND), [
          { field: 'name', type: 'A', rejected: true },
          { field: 'name', type: 'Al' },
          { field: 'email', type: 'not-an-email', rejected: true },
          { field: 'email', type: 'al@example.com' },
          { field: 'replicas', type: 'three', rejected: true },
          { field: 'replicas', type: '12', rejected: true },
          { field: 'replicas', type: '9' },
          { submit: true },
        ]);
        expect(answer).toEqual({
          action: 'accept',
          content: { ...DEFAULTS, name: 'Al', email: 'al@example.com', replicas: 9 },
        });
      });

    if (reviewEdit)
      it('lets the person edit an answer at the review step', async () => {
        const answer = await makeDriver().answerForm(formPrompt(DEPLOY), [
          { field: 'env', choose: 'prod' },
          { field: 'ticket', type: 'REL-9999' },
          { edit: { field: 'ticket', type: 'REL-1001' } },
          { edit: { field: 'env', choose: 'staging' } },
          { submit: true },
        ]);
        expect(answer).toEqual({ action: 'accept', content: { env: 'staging', ticket: 'REL-1001' } });
      });

    it('asks consent for a URL: open is accept, decline and cancel are themselves', async () => {
      const prompt = urlPrompt('https://opsdesk.example.com/password/abc');
      expect(await makeDriver().answerUrl(prompt, 'open')).toEqual({ action: 'accept' });
      expect(await makeDriver().answerUrl(prompt, 'decline')).toEqual({ action: 'decline' });
      expect(await makeDriver().answerUrl(prompt, 'cancel')).toEqual({ action: 'cancel' });
      expect(await makeDriver().answerUrl(prompt, 'withdraw')).toEqual({ action: 'cancel' });
    });
  });
}
