/**
 * Tools used by the integration tests, on every path (in-memory, HTTP in-process, stdio child).
 * `deploy` is the canonical two-question tool; the others each break one rule on purpose.
 */
import { field, form } from '@elicitkit/form';
import * as z from 'zod/v4';
import { done, outcomeSchema, rejected } from '../src/results.js';
import { type AnyTool, defineTool } from '../src/tool.js';

export interface Store {
  deployments: { service: string; env: string; ticket?: string }[];
  /** Ids of URL-mode flows the person has finished. */
  completed: Set<string>;
  /** How many times an effect started (the flaky tool's first attempt throws). */
  attempts: number;
  /** Resolves the `stuck` tool's effect (which otherwise never ends); set while one is running. */
  unstick?: () => void;
  /** How many times a volatile tool built its question (each look shows a new count). */
  looks: number;
  /** What `purge` deletes from; `purges` counts the purges kept (each one transaction). */
  items: string[];
  purges: number;
}

export function createStore(): Store {
  return {
    deployments: [],
    completed: new Set(),
    attempts: 0,
    looks: 0,
    items: ['apple', 'apricot', 'avocado', 'banana', 'blackberry', 'cherry'],
    purges: 0,
  };
}

const APPROVED = new Set(['REL-1001']);

export const envForm = form({
  env: field.select(
    [
      { value: 'dev', title: 'Development' },
      { value: 'staging', title: 'Staging' },
      { value: 'prod', title: 'Production' },
    ],
    { title: 'Environment', description: 'Production asks for a release ticket next.' },
  ),
});

export const prodForm = form({
  confirmed: field.boolean({ title: 'I take responsibility for this production release', default: false }),
  ticket: field.string({ title: 'Release ticket', description: 'An approved ticket, e.g. REL-1001', minLength: 4 }),
});

const pick = form({
  choice: field.select(
    [
      { value: 'a', title: 'A' },
      { value: 'b', title: 'B' },
    ],
    { title: 'Choice' },
  ),
});
const tags = form({
  tags: field.multiSelect(
    [
      { value: 'x', title: 'X' },
      { value: 'y', title: 'Y' },
    ],
    { title: 'Tags', minItems: 1, default: ['x'] },
  ),
  note: field.string({ title: 'Note', default: 'none' }).optional(),
});

export function fixtureTools(store: Store): AnyTool[] {
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service; asks for the environment when it is missing and confirms production.',
    inputSchema: z.object({ service: z.string(), env: z.enum(['dev', 'staging', 'prod']).optional() }),
    outputSchema: outcomeSchema({ deployment: z.object({ service: z.string(), env: z.string() }) }),
    forms: { env: envForm, prod: prodForm },
    async run({ service, env }, ctx) {
      const { ask } = ctx;
      let target = env;
      if (!target) {
        const answer = await ask('env', { message: `Which environment should ${service} be deployed to?` });
        if (answer.action !== 'accept') return answer.result();
        target = answer.value.env;
      }
      let ticket: string | undefined;
      if (target === 'prod') {
        const confirm = await ask('prod', {
          message: `Deploy ${service} to production? Confirm and give an approved release ticket.`,
          check: (v) => [
            ...(v.confirmed
              ? []
              : [{ field: 'confirmed', message: 'Production deploys need the confirmation ticked.' }]),
            ...(APPROVED.has(v.ticket)
              ? []
              : [{ field: 'ticket', message: `Ticket ${v.ticket} is not an approved release ticket for ${service}.` }]),
          ],
        });
        if (confirm.action !== 'accept') return confirm.result();
        ticket = confirm.value.ticket;
      }
      return ctx.commit(() => {
        store.attempts++;
        store.deployments.push({ service, env: target, ...(ticket ? { ticket } : {}) });
        return done(`Deployed ${service} to ${target} (#${store.deployments.length}).`, {
          deployment: { service, env: target },
        });
      });
    },
  });

  /** Its effect fails on the first attempt (before doing anything), then works. */
  const flaky = defineTool({
    name: 'flaky_deploy',
    description: 'Deploy whose first attempt fails cleanly.',
    forms: { env: envForm },
    async run(_args, ctx) {
      const answer = await ctx.ask('env', { message: 'Which environment should the flaky deploy go to?' });
      if (answer.action !== 'accept') return answer.result();
      return ctx.commit(async () => {
        if (++store.attempts === 1) throw new Error('the deploy target was briefly unreachable');
        store.deployments.push({ service: 'flaky', env: answer.value.env });
        return done(`Deployed flaky to ${answer.value.env}.`);
      });
    },
  });

  /** Its effect starts and does not end until the test says so (or the process dies). */
  const stuck = defineTool({
    name: 'stuck_deploy',
    description: 'Deploy whose effect hangs mid-way.',
    forms: { env: envForm },
    async run(_args, ctx) {
      const answer = await ctx.ask('env', { message: 'Which environment should the stuck deploy go to?' });
      if (answer.action !== 'accept') return answer.result();
      return ctx.commit(async () => {
        store.attempts++;
        await new Promise<void>((resolve) => {
          store.unstick = resolve;
        });
        store.deployments.push({ service: 'stuck', env: answer.value.env });
        return done(`Deployed stuck to ${answer.value.env}.`);
      });
    },
  });

  const deployments = defineTool({
    name: 'deployments',
    description: 'List what has been deployed.',
    async run() {
      return done(JSON.stringify(store.deployments), { deployments: store.deployments });
    },
  });

  const tagsTool = defineTool({
    name: 'tags',
    description: 'Asks a multi-select with defaults (cannot be shown to 2025-06-18 clients).',
    forms: { tags },
    async run(_args, { ask }) {
      const answer = await ask('tags', { message: 'Which tags should the release carry?' });
      if (answer.action !== 'accept') return answer.result();
      return done(`Tagged ${answer.value.tags.join(',')} (${answer.value.note ?? 'no note'}).`, {
        value: answer.value,
      });
    },
  });

  const threeAsks = defineTool({
    name: 'three_asks',
    description: 'Asks three questions where two are allowed.',
    async run(_args, { ask }) {
      for (const key of ['one', 'two', 'three']) {
        const answer = await ask(key, { message: `Pick a value for question ${key}, please.`, form: pick });
        if (answer.action !== 'accept') return answer.result();
      }
      return done('asked three times');
    },
  });

  const reaskAfterDecline = defineTool({
    name: 'reask_after_decline',
    description: 'Asks again after a decline (a bug on purpose).',
    async run(_args, { ask }) {
      const first = await ask('first', { message: 'Pick a value for the first question.', form: pick });
      if (first.action === 'decline') {
        const again = await ask('again', { message: 'Please pick a value after all.', form: pick });
        return again.action === 'accept' ? done('got it the second time') : again.result();
      }
      return first.action === 'accept' ? done('first time') : first.result();
    },
  });

  const workAfterCancel = defineTool({
    name: 'work_after_cancel',
    description: 'Reports success after a cancel (a bug on purpose).',
    async run(_args, { ask }) {
      const answer = await ask('choice', { message: 'Pick a value for the operation.', form: pick });
      store.deployments.push({ service: 'after-cancel', env: answer.action });
      return done('finished anyway');
    },
  });

  const register = defineTool({
    name: 'register',
    description: 'URL mode: sends the person to a page to finish out of band.',
    inputSchema: z.object({ flow: z.string() }),
    async run({ flow }, { askUrl }) {
      const outcome = await askUrl('password', {
        message: 'Set your password on the secure page to finish registering.',
        url: `http://127.0.0.1:7777/password/${flow}`,
        isComplete: () => store.completed.has(flow),
      });
      if (outcome.action !== 'accept') return outcome.result();
      return done(`Flow ${flow} completed.`);
    },
  });

  /** Reports what a tool is told about its client: the revision and the modes it can be asked in. */
  const client = defineTool({
    name: 'client',
    description: 'Reports the protocol revision and the elicitation modes the call arrived with.',
    async run(_args, { revision, can }) {
      return done(`${revision} form=${can.form} url=${can.url}`, { revision, can });
    },
  });

  /** Arguments with bounds, a default and an asynchronous rule: checked before anything is asked. */
  const note = defineTool({
    name: 'note',
    description: 'Files a note; asks which environment it is for.',
    inputSchema: z
      .object({
        text: z.string().min(1).max(20).describe('The note'),
        copies: z.number().int().min(1).default(1),
      })
      .refine(async ({ text }) => text !== 'forbidden', { message: 'this text is refused', path: ['text'] }),
    forms: { env: envForm },
    async run({ text, copies }, { ask }) {
      const answer = await ask('env', { message: `Which environment is the note "${text}" for?` });
      if (answer.action !== 'accept') return answer.result();
      return done(`Filed ${copies} × ${text} for ${answer.value.env}.`, { text, copies });
    },
  });

  /**
   * `ctx.attempt`: the purge runs, and is kept when it removed at most two items; more, and it is
   * undone and the person is asked, shown what that run removed; the confirmed purge is kept only
   * if it removes no more than was shown.
   */
  const confirmPurge = form({ sure: field.boolean({ title: 'Remove them', default: false }) });
  const purge = defineTool({
    name: 'purge',
    description: 'Remove the items whose name starts with a prefix; asks first when more than two would go.',
    inputSchema: z.object({ prefix: z.string() }),
    outputSchema: outcomeSchema({ removed: z.array(z.string()) }),
    forms: { sure: confirmPurge },
    async run({ prefix }, ctx) {
      /** One transaction: removes the matches, then keeps them removed only if `keep(removed)`. */
      const run = <W>(keep: (removed: string[]) => boolean, withhold?: (removed: string[]) => W) => {
        store.attempts++;
        const before = store.items;
        const removed = before.filter((i) => i.startsWith(prefix));
        store.items = before.filter((i) => !i.startsWith(prefix));
        if (keep(removed)) {
          store.purges++;
          return done(`Removed ${removed.length} items.`, { removed });
        }
        store.items = before;
        return withhold ? withhold(removed) : rejected(`Nothing was removed: ${removed.length} would go.`);
      };
      const first = await ctx.attempt<string[]>((withhold) => run((r) => r.length <= 2, withhold));
      if (first.done) return first.result;
      const shown = first.withheld;
      const answer = await ctx.ask('sure', { message: `Remove ${shown.length} items (${shown.join(', ')})?` });
      if (answer.action !== 'accept') return answer.result();
      if (!answer.value.sure) return rejected('Nothing was removed: not confirmed.');
      return ctx.commit(() => run((r) => r.every((i) => shown.includes(i))));
    },
  });

  return [
    deploy,
    purge,
    deployments,
    tagsTool,
    threeAsks,
    reaskAfterDecline,
    workAfterCancel,
    register,
    flaky,
    stuck,
    client,
    note,
  ];
}

/**
 * Tools whose question changes on every look, as a message with a clock or a live count does: on
 * 2026-07-28 each round asks something new, so no answer can ever count (`QUESTION_UNSTABLE`).
 */
export function volatileTools(store: Store): AnyTool[] {
  const volatileDeploy = defineTool({
    name: 'volatile_deploy',
    description: 'Deploys order-service; its question shows a count that changes on every look.',
    forms: { env: envForm },
    async run(_args, { ask, commit }) {
      const looks = ++store.looks;
      const answer = await ask('env', {
        message: `Which environment should order-service go to? (queue checked ${looks} times)`,
      });
      if (answer.action !== 'accept') return answer.result();
      return commit(() => {
        store.deployments.push({ service: 'order-service', env: answer.value.env });
        return done(`Deployed order-service to ${answer.value.env}.`);
      });
    },
  });
  const volatilePage = defineTool({
    name: 'volatile_page',
    description: 'URL mode whose page address changes on every look.',
    async run(_args, { askUrl }) {
      const looks = ++store.looks;
      const outcome = await askUrl('page', {
        message: 'Finish on the secure page, please.',
        url: `http://127.0.0.1:7777/page/${looks}`,
        // Nobody finishes it: the last check (the question ends unstable) must find it unfinished.
        isComplete: () => false,
      });
      if (outcome.action !== 'accept') return outcome.result();
      return done('Finished on the page.');
    },
  });
  return [volatileDeploy, volatilePage];
}
