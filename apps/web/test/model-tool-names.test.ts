/**
 * The model names the tool it calls, and a server names the tools it offers: neither is a name the
 * chat may look up among an object's inherited properties. A server's tool named `__proto__` (a
 * valid MCP tool name) was not offered to the model, and a model calling `constructor` or
 * `toString` — tools nobody offered — found `Object`'s own and its turn stopped with the call left
 * without a result or an error. A call the model gets wrong is the model's mistake, and said so:
 * it read as the endpoint's ("check OPENAI_BASE_URL…"). A real stdio server (written on the wire), a real OpenAI-compatible
 * endpoint (a stub streaming chat completions) that records the tools it is offered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rawServer } from './raw-server';

/** The tool each step of the next turn calls (then "Done."), and the tools each request offered. */
const script: { calls: { name: string; arguments: string }[]; offered: string[][] } = { calls: [], offered: [] };
const model = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString('utf8');
  });
  req.on('end', () => {
    const { tools = [] } = JSON.parse(body) as { tools?: { function: { name: string } }[] };
    script.offered.push(tools.map((t) => t.function.name));
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const next = script.calls.shift();
    if (!next) {
      res.end(`${chunk({ role: 'assistant', content: 'Done.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
      return;
    }
    const call = { index: 0, id: `call_${script.offered.length}`, type: 'function', function: next };
    res.end(`${chunk({ role: 'assistant', tool_calls: [call] }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
  });
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));

const SERVER = rawServer({
  tools: [
    { name: '__proto__', description: 'A tool with an unlucky name.', inputSchema: { type: 'object' } },
    { name: 'status', description: 'Says how things are.', inputSchema: { type: 'object' } },
  ],
  call: "(m, ask, reply) => reply({ content: [{ type: 'text', text: 'ran ' + m.params.name }] })",
});
const data = mkdtempSync(join(tmpdir(), 'elicitkit-model-tool-names-'));
process.env.ELICITKIT_DATA = data;
process.env.ELICITKIT_SERVERS = JSON.stringify([
  { name: 'raw', command: [process.execPath, '-e', SERVER], revision: '2025-11-25' },
]);
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
process.env.OPENAI_API_KEY = 'k';
process.env.ELICITKIT_MODEL = 'm-1';

const { newBrowser, turn } = await import('./chat-client');
const { resetState } = await import('../lib/state');
afterAll(async () => {
  await resetState();
  await new Promise((resolve) => model.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

type Chunk = Record<string, unknown>;
const results = (chunks: Chunk[]) =>
  chunks.filter((c) => c.type === 'tool-output-available' || c.type === 'tool-output-error');

describe("the model's tools, by name", () => {
  it('offers a tool named __proto__ like any other, and runs it', async () => {
    script.offered = [];
    script.calls = [{ name: '__proto__', arguments: '{}' }];
    const chunks = await turn(await newBrowser(), 'go');
    expect(script.offered[0]).toEqual(['__proto__', 'status']);
    expect(results(chunks)).toMatchObject([{ type: 'tool-output-available', output: { text: 'ran __proto__' } }]);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty'])(
    'answers a call of %s, which no server offers, with an error: the call is not left without a result',
    async (name) => {
      script.calls = [{ name, arguments: '{}' }];
      const chunks = await turn(await newBrowser(), 'go');
      const called = chunks.filter((c) => c.type === 'tool-input-available' || c.type === 'tool-input-error');
      expect(called).toHaveLength(1);
      expect(results(chunks)).toMatchObject([{ type: 'tool-output-error', toolCallId: called[0]?.toolCallId }]);
    },
  );

  // The model's own mistake, not the endpoint's: "check OPENAI_BASE_URL, OPENAI_API_KEY and
  // ELICITKIT_MODEL" sent the person to fix a configuration that works.
  it.each([
    [
      'a tool nobody offers',
      { name: 'deploy', arguments: '{}' },
      /The model called a tool that does not exist: "deploy"\. Its tools: __proto__, status\./,
    ],
    [
      'arguments that are not JSON',
      { name: 'status', arguments: '{"all": tru' },
      /The model called status with arguments that are not valid: /,
    ],
  ])('says a call of %s is the model’s mistake, not the endpoint’s', async (_label, call, said) => {
    script.calls = [call];
    const chunks = await turn(await newBrowser(), 'go');
    const [error] = results(chunks) as { errorText?: string }[];
    expect(error?.errorText).toMatch(said);
    expect(error?.errorText).not.toMatch(/OPENAI_|ELICITKIT_MODEL/);
  });

  // MCP's `arguments` is an object: the model's JSON text, a list or a number went to the server as
  // the call's arguments (the SDK's schema wrapper checks nothing), where /tool refuses them.
  it.each(['"everything"', '[1, 2]', '5', 'true'])(
    'does not send the server arguments that are not an object (%s): the model is told, and the page',
    async (input) => {
      script.calls = [{ name: 'status', arguments: input }];
      const chunks = await turn(await newBrowser(), 'go');
      expect(chunks.filter((c) => c.type === 'tool-output-available')).toEqual([]);
      const [error] = results(chunks) as { errorText?: string }[];
      expect(error?.errorText).toBe(
        'The model called status with arguments that are not valid: the arguments must be a JSON object (name: value pairs).',
      );
    },
  );
});
