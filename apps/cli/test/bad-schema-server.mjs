// A stdio MCP server whose tool schemas are broken on purpose (issue 11): `elicitkit tools` must
// warn about the broken ones and still list the others; `elicitkit call` must say what is wrong.
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const tools = [
  {
    name: 'fine',
    description: 'A well-formed tool',
    inputSchema: { type: 'object', properties: { env: { type: 'string', enum: ['dev', 'prod'] } } },
  },
  {
    name: 'string_enum',
    description: 'enum is a string',
    inputSchema: { type: 'object', properties: { env: { type: 'string', enum: 'dev' } } },
  },
  {
    name: 'string_property',
    description: 'a property that is not an object',
    inputSchema: { type: 'object', properties: { env: 'string' } },
  },
  {
    name: 'object_enum',
    description: 'an enum of objects',
    inputSchema: { type: 'object', properties: { env: { enum: [{ toString: 'x' }] } } },
  },
  {
    name: 'proto',
    description: '__proto__ as a property name',
    inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
  },
  { name: 'last', description: 'Listed after the broken ones', inputSchema: { type: 'object', properties: {} } },
];

const server = new Server({ name: 'bad-schemas', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', async () => ({ tools }));
server.setRequestHandler('tools/call', async (request) => ({
  content: [{ type: 'text', text: `called ${request.params.name} with ${JSON.stringify(request.params.arguments)}` }],
}));
await server.connect(new StdioServerTransport());
