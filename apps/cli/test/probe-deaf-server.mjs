// A 2025 stdio server of the kind that never answers a request it does not know before
// `initialize` (the version probe `server/discover`), and answers `initialize` and `tools/list`.
// Written on the wire itself: an SDK server would answer the probe.
import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const { id, method } = JSON.parse(line);
  if (method === 'initialize')
    send({
      id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'probe-deaf', version: '1.0.0' },
      },
    });
  else if (method === 'tools/list')
    send({ id, result: { tools: [{ name: 'hello', inputSchema: { type: 'object', properties: {} } }] } });
}
