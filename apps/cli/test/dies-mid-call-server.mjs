// A server whose tool crashes the process: it says why on stderr (an escape sequence in it), then exits.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'dies-mid-call', version: '1' });
server.registerTool('work', { description: 'crashes' }, async () => {
  console.error('fatal: out of disk space while writing /var/lib/x \x1b[2J');
  process.exitCode = 1;
  // Stop reading stdin: the process ends once its stderr is written.
  process.stdin.destroy();
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());
