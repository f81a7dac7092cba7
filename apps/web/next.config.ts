import type { NextConfig } from 'next';

const config: NextConfig = {
  // Server-side code that spawns processes, opens SQLite or speaks MCP runs from node_modules as is.
  serverExternalPackages: [
    'better-sqlite3',
    '@modelcontextprotocol/client',
    '@modelcontextprotocol/server',
    '@elicitkit/client',
    '@elicitkit/opsdesk',
    '@elicitkit/server',
    'ioredis',
  ],
  reactStrictMode: true,
  poweredByHeader: false,
  devIndicators: false,
};

export default config;
