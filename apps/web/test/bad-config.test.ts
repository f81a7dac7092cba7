/**
 * A broken environment: the chat endpoint (`GET /api/chat/info`) and the tools endpoint say
 * exactly what is wrong instead of failing blind, and the tools panel shows it instead of
 * "Loading tools…" forever.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, expect, it } from 'vitest';
import { PAGE_TEXTS } from '../components/texts';
import { ToolsPanel } from '../components/tools-panel';

process.env.ELICITKIT_SERVERS = '[{"name":"x"}]';
const { GET } = await import('../app/api/chat/info/route');
const { GET: getTools } = await import('../app/api/tools/route');
afterAll(() => {
  delete process.env.ELICITKIT_SERVERS;
});

const problem =
  'The configuration is invalid: ELICITKIT_SERVERS[0] needs "url" (a string) or "command" (a non-empty array of strings)';

it('answers 500 with the configuration problem, and creates no chat', async () => {
  const response = await GET(new Request('http://localhost/api/chat/info'));
  expect(response.status).toBe(500);
  expect(response.headers.get('set-cookie')).toBeNull();
  expect(await response.json()).toEqual({ error: problem });
});

it('the tools endpoint says the same, with or without a chat cookie', async () => {
  for (const headers of [{}, { cookie: 'ek_chat=abc' }]) {
    const response = await getTools(new Request('http://localhost/api/tools', { headers }));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: problem });
  }
});

it("a Chinese page is told in Chinese, the cause (the operator's variables) as it is", async () => {
  const zh = { 'x-elicitkit-locale': 'zh' };
  const cause = problem.replace('The configuration is invalid: ', '');
  for (const response of [
    await GET(new Request('http://localhost/api/chat/info', { headers: zh })),
    await getTools(new Request('http://localhost/api/tools', { headers: zh })),
  ]) {
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: `配置无效：${cause}` });
  }
});

it('the tools panel shows why there is no chat instead of "Loading tools…"', async () => {
  const { error } = (await (await GET(new Request('http://localhost/api/chat/info'))).json()) as { error: string };
  const panel = (fatal: string | null, texts = PAGE_TEXTS.en) =>
    renderToStaticMarkup(
      createElement(ToolsPanel, { tools: [], error: null, fatal, disabled: true, onCall: () => {}, texts }),
    );
  expect(panel(error)).toContain(problem.replace(/"/g, '&quot;'));
  expect(panel(error)).not.toContain(PAGE_TEXTS.en.loadingTools);
  // The server did not answer at all: that, not "Loading tools…".
  expect(panel('gone', PAGE_TEXTS.zh)).toContain(PAGE_TEXTS.zh.serverGone);
  expect(panel('gone', PAGE_TEXTS.zh)).not.toContain(PAGE_TEXTS.zh.loadingTools);
  // Still loading: nothing went wrong yet.
  expect(panel(null)).toContain(PAGE_TEXTS.en.loadingTools);
});
