/**
 * Run by `bench/young-survival.ts` in a child process (`node --trace-gc-nvp`): the two rounds of a
 * 2026-07-28 `ask()` call straight into the SDK's `createMcpHandler`, `SURVIVAL_CALLS` times after
 * `SURVIVAL_WARMUP`, with the call written on the raw SDK (`raw`) or with the kit (`kit`). It
 * prints `@@start` and `@@end` around the measured calls; the test sums what the young-generation
 * collections in between promoted.
 */
import { createElicitkit, defineTool, done } from '@elicitkit/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { envForm, inputSchema, message, rawServer } from './deploy-tool.js';

const side = process.argv[2];
const WARMUP = Number(process.env.SURVIVAL_WARMUP ?? 800);
const CALLS = Number(process.env.SURVIVAL_CALLS ?? 1500);

const kit = createElicitkit();
const deploy = defineTool({
  name: 'deploy',
  description: 'deploy',
  inputSchema,
  forms: { env: envForm },
  async run({ service }, { ask }) {
    const answer = await ask('env', { message: message(service) });
    if (answer.action !== 'accept') return answer.result();
    return done(`Deployed ${service} to ${answer.value.env}`);
  },
});

const handler = createMcpHandler(
  side === 'kit' ? () => kit.createServer({ name: 'kit', version: '1' }, [deploy]) : () => rawServer(),
);

// One call through a real client, to record the two requests it sends.
interface Sent {
  url: string;
  headers: [string, string][];
  body: string;
}
const sent: Sent[] = [];
const client = new Client(
  { name: 'survival', version: '1' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { env: 'staging' } }));
await client.connect(
  new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: async (url, init) => {
      const { signal: _signal, ...rest } = init ?? {};
      const request = new Request(url, rest);
      request.headers.set('host', '127.0.0.1');
      if (request.method === 'POST') {
        const body = await request.clone().text();
        if (body.includes('"tools/call"')) sent.push({ url: String(url), headers: [...request.headers], body });
      }
      return handler.fetch(request);
    },
  }),
);
await client.callTool({ name: 'deploy', arguments: { service: 'order-service' } });
const [first, second] = sent;
if (!first || !second) throw new Error(`expected two tools/call rounds, saw ${sent.length}`);
const secondBody = JSON.parse(second.body) as { params: { requestState?: string } };

const post = (s: Sent, body: string) =>
  handler.fetch(new Request(s.url, { method: 'POST', headers: s.headers, body })).then((r) => r.text());
const resultOf = (text: string) => {
  const line = text.split('\n').find((l) => l.startsWith('data: '));
  return JSON.parse(line ? line.slice(6) : text).result as { requestState?: string; content?: { text?: string }[] };
};

async function call(): Promise<void> {
  const state = resultOf(await post(first as Sent, (first as Sent).body)).requestState;
  if (state !== undefined) secondBody.params.requestState = state;
  const result = resultOf(await post(second as Sent, JSON.stringify(secondBody)));
  if (result.content?.[0]?.text !== 'Deployed order-service to staging') throw new Error(JSON.stringify(result));
  await new Promise((resolve) => setImmediate(resolve));
}

for (let i = 0; i < WARMUP; i++) await call();
console.log('@@start');
for (let i = 0; i < CALLS; i++) await call();
console.log('@@end');
process.exit(0);
