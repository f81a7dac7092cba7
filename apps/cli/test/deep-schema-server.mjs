// A stdio MCP server, raw JSON-RPC lines, whose tool list holds what the SDK's own check of the
// list cannot take: a tool whose input schema nests 1,000 levels deep (its check overflows the
// stack), and one that is not a tool as MCP defines one (a description that is a number). Every
// other tool must still be listed and callable. `--shallow`: without the deep one (the SDK's check
// then fails on the other alone).
import { createInterface } from 'node:readline';

const send = (text) => process.stdout.write(`${text}\n`);
const deep = `${'{"type":"object","properties":{"a":'.repeat(1000)}{"type":"string"}${'}}'.repeat(1000)}`;
const tools = [
  '{"name":"fine","description":"A well-formed tool","inputSchema":{"type":"object","properties":{"env":{"type":"string","enum":["dev","prod"]}}}}',
  ...(process.argv.includes('--shallow')
    ? []
    : [`{"name":"deep","description":"Nested 1,000 levels","inputSchema":${deep}}`]),
  '{"name":"numbered","description":5,"inputSchema":{"type":"object"}}',
  '{"name":"last","description":"Listed after the others","inputSchema":{"type":"object","properties":{}}}',
];
createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined || m.method === undefined) return;
  const reply = (result) => send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
  if (m.method === 'initialize')
    return reply({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'deep-schemas', version: '1.0.0' },
    });
  if (m.method === 'ping') return reply({});
  if (m.method === 'tools/list')
    return send(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"tools":[${tools.join(',')}]}}`);
  if (m.method === 'tools/call')
    return reply({
      content: [{ type: 'text', text: `called ${m.params.name} with ${JSON.stringify(m.params.arguments)}` }],
    });
  send(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } }));
});
