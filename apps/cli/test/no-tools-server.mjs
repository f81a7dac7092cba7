// A server with prompts and no tools: the SDK client logs a notice (console.debug) when asked for its tools.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'no-tools', version: '1' }, { capabilities: { prompts: {} } });
server.registerPrompt('hi', { description: 'hi' }, async () => ({ messages: [] }));
await server.connect(new StdioServerTransport());
