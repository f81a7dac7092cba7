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
  // No page may frame the app: a frame from another port of the same host (the same site) carries
  // the SameSite=Strict chat cookie, so a page there could lay a decoy over the person's own chat
  // and have them click its Run and Submit; a frame from another site would open a chat against
  // their address on every load. Both headers: CSP for browsers that read it, the other for the rest.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
        ],
      },
    ];
  },
};

export default config;
