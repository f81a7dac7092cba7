/**
 * A real OpenAI-compatible endpoint for the route tests (a stub streaming chat completions on
 * loopback) whose every step calls one tool until it has called it twice, and then says
 * "Stopped.": a turn that goes on to a second tool call after its first. It reads no request (not
 * the messages, not the tool's result), so the second call comes whatever the first one answered.
 * (`../e2e/scripted-model.ts` is the browser tests' model: it calls once and reports the result.)
 *
 * @example
 * const model = await scriptedModel({ name: 'deploy_service', arguments: { service: 'order-service' } });
 * process.env.OPENAI_BASE_URL = model.baseURL;
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedModel {
  /** OPENAI_BASE_URL for the app (any OPENAI_API_KEY and ELICITKIT_MODEL are answered). */
  baseURL: string;
  close(): Promise<void>;
}

export async function scriptedModel(tool: { name: string; arguments: object }): Promise<ScriptedModel> {
  // Each step one call, the first two steps; then "Stopped.".
  return stubModel((step) => (step <= 2 ? [{ ...tool, id: `call_${step}` }] : undefined));
}

/**
 * A model whose first step of each turn calls every tool of `tools` at once (parallel tool calls,
 * ids `call_0`, `call_1`, …), and whose step after their results says "Stopped.".
 *
 * @example
 * const model = await parallelModel([{ name: 'deploy_service', arguments: { service: 'a' } }, …]);
 */
export async function parallelModel(tools: { name: string; arguments: object }[]): Promise<ScriptedModel> {
  return stubModel((_step, body) =>
    body.includes('"role":"tool"') ? undefined : tools.map((tool, i) => ({ ...tool, id: `call_${i}` })),
  );
}

/**
 * The endpoint: step `n` (from 1, its request's body `body`) makes the tool calls `calls` returns,
 * or says "Stopped." when none.
 */
async function stubModel(
  calls: (step: number, body: string) => { id: string; name: string; arguments: object }[] | undefined,
): Promise<ScriptedModel> {
  let step = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => {
      body += part;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const made = calls(++step, body);
      if (!made) {
        res.end(`${chunk({ role: 'assistant', content: 'Stopped.' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
        return;
      }
      const toolCalls = made.map((call, index) => ({
        index,
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      }));
      res.end(`${chunk({ role: 'assistant', tool_calls: toolCalls }, null)}${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
