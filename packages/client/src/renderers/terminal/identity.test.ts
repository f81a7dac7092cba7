import { afterEach, describe, expect, it } from 'vitest';
import { createScreen } from '../../../test/screen.js';
import { type Connection, connect } from '../../../test/servers.js';
import { attach } from '../../attach/index.js';
import type { ServerIdentity } from '../../types.js';
import { formPrompt } from '../conformance.suite.js';
import { createTerminalRenderer } from './index.js';

// Who asks is the server's own report: its name, title and version were drawn whole before
// every question, so a megabyte of name held the terminal for over a second each time, and a
// line break in it drew lines of the server's choosing above the question.

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

const SCHEMA = { type: 'object', properties: { ticket: { type: 'string', title: 'Release ticket' } } } as const;
const MESSAGE = 'Which release ticket covers this deployment?';

/** The screen up to the first prompt for a question from `server`, and the CPU microseconds it took to draw. */
async function drawn(server: ServerIdentity): Promise<{ shown: string; cpu: number }> {
  const screen = createScreen();
  const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
  const before = process.cpuUsage();
  const answer = renderer.renderForm({ ...formPrompt(SCHEMA, MESSAGE), server }, new AbortController().signal);
  const shown = await screen.nextPrompt();
  const used = process.cpuUsage(before);
  screen.press('d');
  await answer;
  return { shown, cpu: used.user + used.system };
}

describe('the asking server, as the terminal shows it', () => {
  it('shows a name of a megabyte cut, at the cost of a short one', async () => {
    const short = { name: 'opsdesk', version: '1.0.0' };
    await drawn(short);
    // At least a millisecond's worth, so the ratio is not read off noise.
    const baseline = Math.max(Math.min((await drawn(short)).cpu, (await drawn(short)).cpu), 1_000);
    const long = { name: 'x'.repeat(1_000_000), version: '1.0.0' };
    const { shown } = await drawn(long);
    // Wrapped to the terminal's width: 200 characters of it, then "…".
    expect(shown.match(/x/g)).toHaveLength(200);
    expect(shown).toMatch(/x… v1\.0\.0 asks:/);
    // Drawn whole it cost hundreds of times as much. The least of three draws, as the baseline is:
    // one draw alone took 65 ms once in CI, a collection of the worker's heap falling inside it.
    const cpu = Math.min((await drawn(long)).cpu, (await drawn(long)).cpu, (await drawn(long)).cpu);
    expect(cpu, 'CPU time to draw the question, a megabyte of name vs a short one').toBeLessThan(baseline * 20);
  });

  it('shows name, title and version on the one line that says who asks (real SDK)', async () => {
    const screen = createScreen();
    const renderer = createTerminalRenderer({ input: screen.input, output: screen.output, opener: () => {} });
    const connection = await connect('2025-11-25', (client) => attach(client, { renderer }), {
      name: 'ops\ndesk',
      title: 'Ops\nDesk',
      version: '1.0\n.0',
    });
    open.push(connection);
    const answer = connection.ask({ mode: 'form', message: MESSAGE, requestedSchema: SCHEMA });
    expect(await screen.nextPrompt()).toContain('Ops Desk (ops desk) v1.0 .0 asks:');
    screen.press('d');
    expect(await answer).toEqual({ action: 'decline' });
  });
});
