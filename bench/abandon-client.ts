/**
 * The clients of `abandoned-calls.ts`, in their own process: N legacy (2025-11-25) SDK clients
 * each call a tool that asks, and once every question has arrived the process exits without a
 * word — no DELETE, no cancel: its sockets just close, as when a laptop lid shuts.
 *
 *   node --import tsx bench/abandon-client.ts <url> <n> [tool] [bearer token]
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, n, tool, token] = [process.argv[2] ?? '', Number(process.argv[3] ?? 50), process.argv[4], process.argv[5]];
const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
let asked = 0;
for (let i = 0; i < n; i++) {
  const client = new Client({ name: `abandon-${i}`, version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', () => {
    if (++asked === n) {
      process.stdout.write(`asked ${n}\n`, () => process.exit(0));
    }
    return new Promise(() => {});
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : {}));
  const call = tool ? { name: tool, arguments: { service: 'order-service' } } : { name: 'deploy', arguments: {} };
  void client.callTool(call, { timeout: 600_000 }).catch(() => {});
}
