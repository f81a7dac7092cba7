/**
 * A stdio server that cannot start is named in the chat and the tools panel by its command line,
 * which anyone using the chat reads: the secrets a command line carries are hidden wherever they
 * sit — not only after a flag named like one. Each case is a way MCP servers are configured.
 */
import { describe, expect, it } from 'vitest';
import { serverPlace } from '../lib/server-failure';

const place = (command: string, args: string[]) =>
  serverPlace({ name: 's', kind: 'stdio', command, args, revision: 'auto' } as Parameters<typeof serverPlace>[0]);

describe('a command line as an error shows it', () => {
  it.each([
    [
      'docker',
      ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN=ghp_SECRET123', 'ghcr.io/github/github-mcp-server'],
      'command: docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN=*** ghcr.io/github/github-mcp-server',
    ],
    ['docker', ['run', '--env', 'REGION=eu-west-1', 'img'], 'command: docker run --env REGION=*** img'],
    [
      'npx',
      ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://app:S3cretPw@db.internal/prod'],
      'command: npx -y @modelcontextprotocol/server-postgres postgresql://app:***@db.internal/prod',
    ],
    [
      'node',
      ['server.js', '--header', 'Authorization: Bearer sk-SECRET'],
      'command: node server.js --header "Authorization: ***"',
    ],
    ['node', ['server.js', '-H', 'X-Api-Key: k-SECRET'], 'command: node server.js -H "X-Api-Key: ***"'],
    ['env', ['API_KEY=sk-SECRET', 'node', 'server.js'], 'command: env API_KEY=*** node server.js'],
    ['node', ['server.js', 'Bearer sk-SECRET'], 'command: node server.js "Bearer ***"'],
    [
      'mcp-proxy',
      ['https://h.example/mcp?api_key=k-SECRET&page=2'],
      'command: mcp-proxy "https://h.example/mcp?api_key=***&page=2"',
    ],
    ['node', ['server.js', '--token', 'tok-SECRET'], 'command: node server.js --token ***'],
    ['node', ['server.js', '--api-key=sk-SECRET'], 'command: node server.js --api-key=***'],
  ])('%s %j', (command, args, shown) => {
    const said = place(command, args);
    expect(said).toBe(shown);
    expect(said).not.toMatch(/SECRET|S3cret/);
  });

  it('shows what is no secret as it is: a program and its ordinary arguments, node -e code', () => {
    expect(place('node', ['-e', 'process.exit(3)'])).toBe('command: node -e "process.exit(3)"');
    expect(place('npx', ['-y', 'some-mcp-server', '--port', '7777', 'https://h.example/mcp'])).toBe(
      'command: npx -y some-mcp-server --port 7777 https://h.example/mcp',
    );
  });
});
