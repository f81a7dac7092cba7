/**
 * A tool call the model makes that fails (here its MCP server stops between the listing and the
 * call) is shown on the page with the call's own reason — which server, that nothing was sent — as
 * a slash command shows it, not explained as a failure of the model endpoint: the model call
 * worked, and "check OPENAI_BASE_URL" (or "the model endpoint cannot be reached", from the
 * refused connection in the error's causes) sends the person to fix the wrong thing. Real SDK
 * server over loopback HTTP, a real OpenAI-compatible endpoint (a stub streaming chat completions).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestartable } from '../../../test/support/restartable-mcp.js';

const upstream = await startRestartable();

let requests = 0;
const model = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    requests++;
    if (requests > 1) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ role: 'assistant', content: 'It failed.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
      return;
    }
    // The tools are listed by now: the server stops before the model's call reaches it.
    void upstream.stop().then(() => {
      const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'status', arguments: '{}' } };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ role: 'assistant', tool_calls: [call] }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const data = mkdtempSync(join(tmpdir(), 'elicitkit-web-tool-error-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([{ name: 'ops', url: upstream.url, revision: '2025-11-25' }]);
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await upstream.stop();
  await new Promise((resolve) => model.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

describe('a tool call of a model turn that fails', () => {
  it("is shown with the call's own reason, not as a failure of the model", async () => {
    const b = await newBrowser();
    const runs = upstream.runs.status;
    const chunks = await turn(b, 'what is the status?');
    const errors = chunks.filter((c) => c.type === 'tool-output-error').map((c) => c.errorText);
    expect(errors).toEqual([
      `The MCP server "ops" (${upstream.url}) cannot be reached: connection refused (nothing listens there). The request was not sent. Try again once it is running.`,
    ]);
    expect(upstream.runs.status).toBe(runs);
  });
});
