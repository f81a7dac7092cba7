/**
 * The source of a stdio MCP server written on the wire itself (no SDK: any shape a hostile or
 * sloppy server may send), for `node -e`. It answers `initialize` with `serverInfo` (2025-11-25),
 * `tools/list` with `tools`, `ping`, and each `tools/call` with `call`: the JavaScript source of a
 * function `(m, ask, reply)`, where `ask(params)` sends one `elicitation/create` and resolves with
 * the client's response, and `reply(result)` answers the call.
 *
 * @example
 * rawServer({ tools: [{ name: 'ask', inputSchema: { type: 'object' } }], call: '(m, ask, reply) => ask(Q).then(() => reply(R))' })
 */
export function rawServer(options: { serverInfo?: object; tools: object[]; call?: string }): string {
  const serverInfo = options.serverInfo ?? { name: 'hostile', version: '1.0.0' };
  return `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let next = 1000;
const waiting = new Map();
const ask = (params) => new Promise((resolve) => {
  const id = next++;
  waiting.set(id, resolve);
  send({ jsonrpc: '2.0', id, method: 'elicitation/create', params });
});
const call = ${options.call ?? '() => {}'};
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) { const w = waiting.get(m.id); if (w) { waiting.delete(m.id); w(m); } return; }
  if (m.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: m.id, result });
  if (m.method === 'initialize')
    return reply({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: ${JSON.stringify(serverInfo)} });
  if (m.method === 'tools/list') return reply({ tools: ${JSON.stringify(options.tools)} });
  if (m.method === 'tools/call') return call(m, ask, reply);
  if (m.method === 'ping') return reply({});
  send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });
});`;
}
