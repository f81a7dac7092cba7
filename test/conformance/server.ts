/**
 * The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) is run
 * against (`test/conformance/run.ts`): an HTTP MCP server built the way an Elicitkit user builds
 * one — `createElicitkit`, `defineTool`, forms from `@elicitkit/form`, `createHttpHandler` served
 * with `toNodeListener`, resumable streams from `createMemoryEventStore` — with exactly the tools
 * (and the one prompt) the elicitation, input-required and server-SSE scenarios call, and the
 * diagnostic tools of server-stateless (one of them elicits; two change the lists).
 *
 * Every question about a form is asked with `ctx.ask`, so the same tool answers a 2025 client with
 * a pushed `elicitation/create` and a 2026-07-28 client with an `input_required` result. What the
 * suite asks for that Elicitkit does not do (sampling, roots, a prompt that asks) is written with
 * the SDK's own `inputRequired` builder beside the kit's tools, marked so below. Two triggers change
 * the tools and prompts it serves, and say so (`http.notify`).
 *
 *   node --import tsx --conditions=@elicitkit/source test/conformance/server.ts [port]
 *
 * Prints `listening <url>` once it accepts connections. `CONFORMANCE_PURE=1` drops the one
 * fixture-side fallback (sampling when a client cannot be asked a form), to see what the kit alone
 * answers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { field, form } from '@elicitkit/form';
import { createElicitkit, createHttpHandler, defineTool, done } from '@elicitkit/server';
import { toNodeListener } from '@elicitkit/server/node';
import { createMemoryEventStore } from '@elicitkit/server/stores';
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  type McpServer,
} from '@modelcontextprotocol/server';
import * as z from 'zod/v4';

const PURE = process.env.CONFORMANCE_PURE === '1';
const RETRY_MS = 200;

const show = (value: unknown) => JSON.stringify(value);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// 2025 revisions (pushed `elicitation/create`): tools-call-elicitation, elicitation-sep1034-defaults,
// elicitation-sep1330-enums. The same tools answer 2026-07-28 clients with `input_required`.
// ---------------------------------------------------------------------------------------------

/** tools-call-elicitation: `test_elicitation({ message })` asks for a username and an email. */
const testElicitation = defineTool({
  name: 'test_elicitation',
  description: 'Asks the user for a username and an email address, with the message given.',
  inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
  forms: {
    info: form({
      username: field.string({ title: 'Username', description: "User's response" }),
      email: field.string({ title: 'Email', description: "User's email address" }),
    }),
  },
  async run({ message }, { ask }) {
    const answer = await ask('info', { message });
    if (answer.action !== 'accept') return answer.result(); // unsupported when the client cannot elicit
    return done(`User response: action=accept, content=${show(answer.value)}`, { response: answer.value });
  },
});

/** elicitation-sep1034-defaults: a default on every primitive type (SEP-1034). */
const testDefaults = defineTool({
  name: 'test_elicitation_sep1034_defaults',
  description: 'Asks for a form whose every field has a default (SEP-1034).',
  forms: {
    defaults: form({
      name: field.string({ title: 'Name', description: 'User name', default: 'John Doe' }),
      age: field.integer({ title: 'Age', description: 'User age', default: 30 }),
      score: field.number({ title: 'Score', description: 'User score', default: 95.5 }),
      status: field.select(['active', 'inactive', 'pending'], {
        title: 'Status',
        description: 'User status',
        default: 'active',
      }),
      verified: field.boolean({ title: 'Verified', description: 'Verification status', default: true }),
    }),
  },
  async run(_args, { ask }) {
    const answer = await ask('defaults', { message: 'Check these user details; each field has a default.' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Elicitation completed: action=accept, content=${show(answer.value)}`, { content: answer.value });
  },
});

/** elicitation-sep1330-enums: the five enum shapes of SEP-1330, legacy `enumNames` included. */
const testEnums = defineTool({
  name: 'test_elicitation_sep1330_enums',
  description: 'Asks for a form with every enum shape (SEP-1330).',
  forms: {
    enums: form({
      untitledSingle: field.select(['option1', 'option2', 'option3'], { title: 'Untitled single' }),
      titledSingle: field.select(
        [
          { value: 'value1', title: 'First Option' },
          { value: 'value2', title: 'Second Option' },
          { value: 'value3', title: 'Third Option' },
        ],
        { title: 'Titled single' },
      ),
      legacyEnum: field.select(
        [
          { value: 'opt1', title: 'Option One' },
          { value: 'opt2', title: 'Option Two' },
          { value: 'opt3', title: 'Option Three' },
        ],
        { title: 'Legacy titled', style: 'legacy' },
      ),
      untitledMulti: field.multiSelect(['option1', 'option2', 'option3'], { title: 'Untitled multi' }),
      titledMulti: field.multiSelect(
        [
          { value: 'value1', title: 'First Choice' },
          { value: 'value2', title: 'Second Choice' },
          { value: 'value3', title: 'Third Choice' },
        ],
        { title: 'Titled multi' },
      ),
    }),
  },
  async run(_args, { ask }) {
    const answer = await ask('enums', { message: 'Choose an option in each of these lists.' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Elicitation completed: action=accept, content=${show(answer.value)}`, { content: answer.value });
  },
});

// ---------------------------------------------------------------------------------------------
// server-sse-polling (SEP-1699): the tool closes its own response stream mid-call; the client
// resumes with Last-Event-ID and gets the result from the event store.
// ---------------------------------------------------------------------------------------------

const testReconnection = defineTool({
  name: 'test_reconnection',
  description: 'Closes its response stream before answering, so the client must reconnect (SEP-1699).',
  async run(_args, { mcp }) {
    mcp.http?.closeSSE?.();
    await sleep(RETRY_MS);
    return done('Reconnection test completed successfully');
  },
});

// ---------------------------------------------------------------------------------------------
// 2026-07-28 input_required (SEP-2322): the same `ask`, returned instead of pushed.
// ---------------------------------------------------------------------------------------------

const name = form({ name: field.string({ title: 'Name' }) });

/** basic-elicitation, result-type, missing-input-response, ignore-extra-params, validate-input. */
const irElicitation = defineTool({
  name: 'test_input_required_result_elicitation',
  description: 'Asks the user for their name, then greets them.',
  forms: { user_name: name },
  async run(_args, { ask }) {
    const answer = await ask('user_name', { message: 'What is your name?' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Hello, ${answer.value.name}!`);
  },
});

/** request-state: the answer comes back with the sealed state, which the kit has verified. */
const irRequestState = defineTool({
  name: 'test_input_required_result_request_state',
  description: 'Asks for a confirmation and reports that the echoed state was verified.',
  forms: { confirm: form({ ok: field.boolean({ title: 'OK' }) }) },
  async run(_args, { ask }) {
    const answer = await ask('confirm', { message: 'Please confirm' });
    if (answer.action !== 'accept') return answer.result();
    // An answer reaches the handler only out of a requestState the kit sealed and opened again.
    return done(`state-ok: ok=${answer.value.ok}`);
  },
});

/** multi-round: two questions, one per round, each round with a new state. */
const irMultiRound = defineTool({
  name: 'test_input_required_result_multi_round',
  description: 'Asks for a name, then for a favourite colour.',
  forms: { step1: name, step2: form({ color: field.string({ title: 'Favourite colour' }) }) },
  async run(_args, { ask }) {
    const first = await ask('step1', { message: 'Step 1: What is your name?' });
    if (first.action !== 'accept') return first.result();
    const second = await ask('step2', { message: 'Step 2: What is your favorite color?' });
    if (second.action !== 'accept') return second.result();
    return done(`${first.value.name} likes ${second.value.color}.`);
  },
});

/** tampered-state: the kit's requestState is HMAC-sealed; a changed one is refused (-32602). */
const irTampered = defineTool({
  name: 'test_input_required_result_tampered_state',
  description: 'Asks for a confirmation; its requestState is integrity-protected.',
  forms: { confirm: form({ ok: field.boolean({ title: 'OK' }) }) },
  async run(_args, { ask }) {
    const answer = await ask('confirm', { message: 'Please confirm to continue' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Confirmed: ok=${answer.value.ok}`);
  },
});

/**
 * capability-check: the kit never sends a question in a mode the client did not declare (the ask
 * ends `unsupported` without reaching it). What the suite then wants to see is a request the
 * client *did* declare — a sampling one — which the kit does not make: the fixture falls back to
 * the SDK's builder for it, as a tool with "a fallback of its own" would (docs/server.md).
 */
const irCapabilities = defineTool({
  name: 'test_input_required_result_capabilities',
  description: 'Asks the user for their name, or the model when the client cannot show a form.',
  forms: { user_name: name },
  async run(_args, { ask, mcp }) {
    const answer = await ask('user_name', { message: 'What is your name?' });
    if (answer.action === 'accept') return done(`Hello, ${answer.value.name}!`);
    if (answer.action !== 'unsupported' || PURE) return answer.result();
    const sampled = mcp.mcpReq.inputResponses?.name_from_model as { content?: { text?: unknown } } | undefined;
    if (sampled) return done(`The model said: ${String(sampled.content?.text ?? '')}`);
    if (!clientCapabilities(mcp)?.sampling) return answer.result();
    return inputRequired({
      inputRequests: {
        name_from_model: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a name for a test user.' } }],
          maxTokens: 50,
        }),
      },
    }) as unknown as CallToolResult;
  },
});

function clientCapabilities(mcp: { mcpReq: { envelope?: unknown } }): ClientCapabilities | undefined {
  const envelope = mcp.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
}

/**
 * server-stateless (SEP-2575), its one elicitation check: on 2026-07-28 a question travels in the
 * result (`input_required`), never as a request of its own on the response stream.
 */
const testStreamingElicitation = defineTool({
  name: 'test_streaming_elicitation',
  description: 'Asks the user for their name (2026-07-28: in the result, never pushed).',
  forms: { user_name: name },
  async run(_args, { ask }) {
    const answer = await ask('user_name', { message: 'What is your name?' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Hello, ${answer.value.name}!`);
  },
});

/**
 * server-stateless (SEP-2575), its list-change checks: each trigger changes what the factory serves
 * (a tool or a prompt comes, or goes again) and says so with `http.notify`, which reaches the open
 * `subscriptions/listen` streams that asked for that kind of change.
 */
const changing = { tool: false, prompt: false };
const dynamicTool = defineTool({
  name: 'test_dynamic_tool',
  description: 'Served only while test_trigger_tool_change has turned it on.',
  forms: {},
  async run() {
    return done('The dynamic tool ran.');
  },
});
const triggerToolChange = defineTool({
  name: 'test_trigger_tool_change',
  description: 'Adds test_dynamic_tool to the tools (or takes it away again) and tells listeners.',
  forms: {},
  async run() {
    changing.tool = !changing.tool;
    http.notify.toolsChanged();
    return done(`test_dynamic_tool is ${changing.tool ? 'served' : 'gone'}.`);
  },
});
const triggerPromptChange = defineTool({
  name: 'test_trigger_prompt_change',
  description: 'Adds test_dynamic_prompt to the prompts (or takes it away again) and tells listeners.',
  forms: {},
  async run() {
    changing.prompt = !changing.prompt;
    http.notify.promptsChanged();
    return done(`test_dynamic_prompt is ${changing.prompt ? 'served' : 'gone'}.`);
  },
});

const TOOLS = [
  triggerToolChange,
  triggerPromptChange,
  testElicitation,
  testDefaults,
  testEnums,
  testReconnection,
  irElicitation,
  irRequestState,
  irMultiRound,
  irTampered,
  irCapabilities,
  testStreamingElicitation,
];

// ---------------------------------------------------------------------------------------------
// Outside Elicitkit's purpose (it asks people through forms and pages, in tools): sampling, roots
// and a prompt that asks. Written with the SDK's `inputRequired` builder, on the kit's server.
// ---------------------------------------------------------------------------------------------

const NO_ARGS = z.object({});
const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

function registerSdkOnly(server: McpServer): void {
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks the model for the capital of France (SDK, not Elicitkit).', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const reply = ctx.mcpReq.inputResponses?.capital_question as { content?: { text?: unknown } } | undefined;
      if (reply) return text(`Sampling said: ${String(reply.content?.text ?? '')}`);
      return inputRequired({
        inputRequests: {
          capital_question: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: "Lists the client's roots (SDK, not Elicitkit).", inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const reply = ctx.mcpReq.inputResponses?.client_roots as { roots?: { uri: string }[] } | undefined;
      if (reply?.roots) return text(`Roots: ${reply.roots.map((r) => r.uri).join(', ')}`);
      return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  );
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a greeting and the roots at once (SDK, not Elicitkit).', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses ?? {};
      const user = acceptedContent(responses, 'user_name');
      if (user && responses.greeting && responses.client_roots) return text(`All three answered: ${show(user)}`);
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        // Nothing rides on it (a tampered one can only make the call ask again): not sealed.
        requestState: 'multiple-inputs-round-1',
      });
    },
  );
  // server-stateless diagnostics. A sampling request to a client that did not declare sampling is
  // refused by the SDK's own seam with -32021 (MissingRequiredClientCapabilityError).
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs sampling, which the caller must declare (SDK, not Elicitkit).', inputSchema: NO_ARGS },
    async () =>
      inputRequired({
        inputRequests: {
          needs_sampling: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }],
            maxTokens: 10,
          }),
        },
      }),
  );
  server.registerTool(
    'test_logging_tool',
    { description: 'Logs one message, which the SDK drops unless the request set a log level.', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      await ctx.mcpReq.log('info', 'test_logging_tool ran');
      return text('Logged one message.');
    },
  );
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks for its context first (SDK, not Elicitkit).' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context');
      if (typeof answer?.context === 'string')
        return { messages: [{ role: 'user', content: { type: 'text', text: `Context: ${answer.context}` } }] };
      return inputRequired({
        inputRequests: {
          user_context: inputRequired.elicit({
            message: 'What context should the prompt use?',
            requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
          }),
        },
      });
    },
  );
}

const kit = createElicitkit();
const http = createHttpHandler(
  () => {
    const server = kit.createServer(
      { name: 'elicitkit-conformance', version: '0.0.0' },
      changing.tool ? [...TOOLS, dynamicTool] : TOOLS,
    );
    registerSdkOnly(server);
    if (changing.prompt)
      server.registerPrompt('test_dynamic_prompt', { description: 'Served while turned on.' }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'dynamic' } }],
      }));
    return server;
  },
  { eventStore: createMemoryEventStore(), retryMs: RETRY_MS },
);

const listener = toNodeListener(http);
const node = createServer((req, res) => {
  const path = req.url?.split('?')[0];
  if (path !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  void listener(req, res);
});

const port = Number(process.argv[2] ?? 0);
node.listen(port, '127.0.0.1', () => {
  const { port: bound } = node.address() as AddressInfo;
  console.log(`listening http://127.0.0.1:${bound}/mcp`);
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  node.closeAllConnections();
  node.close();
  void http.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
