/**
 * The clients of `bench/open-questions.ts`, in their own process (so the heap measured there is the
 * server's alone). Real SDK clients over HTTP, one after another, each question left unanswered:
 *
 * - `2025-11-25`: N clients, each its own session (initialize, its GET stream), each calling the
 *   one-question tool; the next starts once the previous one's `elicitation/create` has arrived.
 * - `2026-07-28`: one client makes N calls; each call's first round ends with `input_required`,
 *   and the client's answer never comes, so on the server the call sits between rounds.
 *
 * Prints `asked <n>` once every question has arrived, then waits; it exits when its stdin ends
 * (the bench has measured), leaving everything open until then. With `pause`, it prints
 * `asked <pause>` once that many have arrived and goes on only when a line comes on its stdin.
 *
 *   node --import tsx bench/support/open-question-client.ts <url> <n> <2025-11-25|2026-07-28> [pause]
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, n, revision] = [process.argv[2] ?? '', Number(process.argv[3] ?? 1000), process.argv[4] ?? '2025-11-25'];
const pause = process.argv[5] === undefined ? undefined : Number(process.argv[5]);

function newClient(onAsked: () => void): Client {
  const client = new Client(
    { name: 'open-questions', version: '1' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', () => {
    onAsked();
    // Never answered.
    return new Promise(() => {});
  });
  return client;
}

const call = { name: 'deploy', arguments: { service: 'order-service' } };
let wake: (() => void) | undefined;
const asked = () => wake?.();
const next = () =>
  new Promise<void>((resolve) => {
    wake = resolve;
  });

const shared = revision === '2026-07-28' ? newClient(asked) : undefined;
if (shared) await shared.connect(new StreamableHTTPClientTransport(new URL(url)));
for (let i = 0; i < n; i++) {
  const client = shared ?? newClient(asked);
  if (!shared) await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const arrived = next();
  void client.callTool(call, { timeout: 3_600_000 }).catch((error: unknown) => {
    process.stderr.write(`call ${i} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  await arrived;
  if (i + 1 === pause && pause < n) {
    process.stdout.write(`asked ${pause}\n`);
    await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  }
}
process.stdout.write(`asked ${n}\n`);
process.stdin.resume();
process.stdin.once('end', () => process.exit(0));
