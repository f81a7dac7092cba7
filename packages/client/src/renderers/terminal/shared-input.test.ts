import { afterEach, describe, expect, it } from 'vitest';
import { recording } from '../../../test/recording.js';
import { createScreen, type Screen } from '../../../test/screen.js';
import { type Ask, type Connection, connect, type ServedRevision } from '../../../test/servers.js';
import { attach } from '../../attach/index.js';
import type { Renderer, UrlPrompt } from '../../types.js';
import { createTerminalRenderer } from './index.js';

// Two servers asking at once through one terminal: every prompt reading the input stream takes
// each key press, so both questions were drawn together and one "o" opened both links (the one
// the person was looking at, and the other server's).

const open: Connection[] = [];
afterEach(async () => {
  for (const connection of open.splice(0)) await connection.close();
});

const link = (server: string): Ask => ({
  mode: 'url',
  message: `Sign in to the ${server} console to continue.`,
  url: `https://${server}.example.com/sign-in`,
  elicitationId: `sign-in-${server}`,
});

/** A client on `revision` attached to `renderer`, and the prompts that reached it. */
async function client(revision: ServedRevision, renderer: Renderer) {
  const recorded = recording(renderer);
  const connection = await connect(revision, (c) => attach(c, { renderer: recorded.renderer }));
  open.push(connection);
  return { connection, prompts: recorded.prompts as UrlPrompt[] };
}

function terminal(screen: Screen, opened: string[]): Renderer {
  return createTerminalRenderer({ input: screen.input, output: screen.output, opener: (url) => void opened.push(url) });
}

describe('one terminal, several servers asking at once', () => {
  it.each([
    ['two clients attached to one terminal renderer', true],
    ['two terminal renderers on one input stream', false],
  ])('%s: a key press answers only the question on screen; the next is drawn after it', async (_shape, shared) => {
    const screen = createScreen();
    const opened: string[] = [];
    const first = terminal(screen, opened);
    const a = await client('2025-11-25', first);
    const b = await client('2025-11-25', shared ? first : terminal(screen, opened));
    const fromA = a.connection.ask(link('alpha'));
    await screen.nextPrompt();
    const fromB = b.connection.ask(link('beta'));
    // B's question has reached its renderer while A's is on screen.
    await expect.poll(() => b.prompts.length).toBe(1);
    screen.press('o');
    expect(await fromA).toEqual({ action: 'accept' });
    expect(opened).toEqual(['https://alpha.example.com/sign-in']);
    const next = await screen.nextPrompt();
    expect(next).toContain('https://beta.example.com/sign-in');
    screen.press('d');
    expect(await fromB).toEqual({ action: 'decline' });
    expect(opened).toEqual(['https://alpha.example.com/sign-in']);
  });

  it('a question withdrawn while it waits its turn is never drawn, and the ones after it are', async () => {
    const screen = createScreen();
    const opened: string[] = [];
    const renderer = terminal(screen, opened);
    const a = await client('2025-11-25', renderer);
    const b = await client('2026-07-28', renderer);
    const fromA = a.connection.ask(link('alpha'));
    await screen.nextPrompt();
    const caller = new AbortController();
    const fromB = b.connection.ask(link('beta'), { signal: caller.signal }).catch((error: unknown) => ({ error }));
    await expect.poll(() => b.prompts.length).toBe(1);
    caller.abort();
    await fromB;
    screen.press('d');
    expect(await fromA).toEqual({ action: 'decline' });
    const again = b.connection.ask(link('gamma'));
    expect(await screen.nextPrompt()).toContain('https://gamma.example.com/sign-in');
    screen.press('d');
    expect(await again).toEqual({ action: 'decline' });
    expect(screen.text()).not.toContain('beta');
    expect(opened).toEqual([]);
  });
});
