import { FORM_LIMITS } from '@elicitkit/form';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ask, type Connection, connect } from '../../test/servers.js';
import { MAX_URL_LENGTH } from '../checks/url.js';
import { createScriptedRenderer } from '../renderers/scripted/index.js';
import { attach } from './index.js';

// A hostile server's text that the client lints before anything is shown: field titles and
// descriptions and URL-mode query parameter names. Lint's word splitter (`words` in
// packages/form/src/lint/words.ts) once ran /([A-Z]+)([A-Z][a-z])/g, which backtracked over a run
// of capitals from every position in it: time growing with the run's length squared, on the
// client's event loop (0.7 s for 40,000 capitals). Measured like checks/form.test.ts does: CPU
// time against a plain text of the same length, through the same real SDK round trip. A title or
// description over its cap (FORM_LIMITS) is refused before lint reads it, so those cases use the
// longest text that fits, as the URL case does.
const MESSAGE = 'Deploy order-service to which environment, under which release ticket?';

let open: Connection | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function connection(): Promise<Connection> {
  const answers = Array.from({ length: 40 }, () => ({ action: 'decline' as const }));
  open = await connect('2025-11-25', (client) =>
    attach(client, { renderer: createScriptedRenderer(answers), policy: { rateLimit: false } }),
  );
  return open;
}

async function cpu(c: Connection, ask: Ask): Promise<number> {
  const before = process.cpuUsage();
  const received = await c.ask(ask);
  const used = process.cpuUsage(before);
  expect(received).toEqual({ action: 'decline' });
  return used.user + used.system;
}

async function costOf(c: Connection, ask: Ask): Promise<number> {
  return Math.min(await cpu(c, ask), await cpu(c, ask), await cpu(c, ask));
}

const plainText = (n: number) => `Release ticket for this deployment ${'ab c'.repeat(n / 4)}`.slice(0, n);
const capitals = (n: number) => 'A'.repeat(n);
const TITLE_N = FORM_LIMITS.titleLength;
const HELP_N = FORM_LIMITS.descriptionLength;
/** A URL longer than MAX_URL_LENGTH is refused before lint reads it: the longest parameter name that fits. */
const URL_N = MAX_URL_LENGTH - 64;

const form = (title: string, description?: string): Ask => ({
  mode: 'form',
  message: MESSAGE,
  requestedSchema: {
    type: 'object',
    properties: {
      ticket: { type: 'string', title, ...(description === undefined ? {} : { description }) },
    },
  },
});
const confirmForm = (description: string): Ask => ({
  mode: 'form',
  message: MESSAGE,
  requestedSchema: {
    type: 'object',
    properties: { ok: { type: 'boolean', title: 'I take responsibility', description } },
  },
});
const url = (param: string): Ask => ({
  mode: 'url',
  message: 'Sign in to the deployment console to continue.',
  url: `https://console.example.com/setup?${param}=1`,
  elicitationId: 'el-1',
});

describe('a hostile server cannot hold the client event loop with lint-quadratic text', () => {
  it.each([
    ['a field title that is one run of capitals', form(capitals(TITLE_N)), form(plainText(TITLE_N))],
    [
      'a field description that is one run of capitals',
      form('Release ticket', capitals(HELP_N)),
      form('Release ticket', plainText(HELP_N)),
    ],
    [
      'a checkbox description that is one run of capitals',
      confirmForm(capitals(HELP_N)),
      confirmForm(plainText(HELP_N)),
    ],
    ['a URL-mode query parameter name that is one run of capitals', url('A'.repeat(URL_N)), url('q'.repeat(URL_N))],
  ])(
    '%s',
    async (_shape, hostile, plain) => {
      const c = await connection();
      await costOf(c, plain);
      // At least a millisecond's worth, so the ratio is not read off noise.
      const baseline = Math.max(await costOf(c, plain), 1_000);
      expect(await costOf(c, hostile), 'CPU time for the hostile text vs a plain one of the same length').toBeLessThan(
        baseline * 10,
      );
    },
    120_000,
  );
});
