import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  parseRevisionChoice,
  REVISION_CHOICES,
  type RevisionChoice,
  RevisionChoiceError,
  revisionOptions,
} from './revision.js';

const server = () => new McpServer({ name: 'revision-test', version: '1.0.0' });

/** The revision a client built with `revisionOptions(choice)` ends up speaking with a real SDK server. */
async function negotiated(choice: RevisionChoice, transport: 'linked pair' | 'http'): Promise<string | undefined> {
  const client = new Client({ name: 'revision-test-client', version: '1.0.0' }, revisionOptions(choice));
  if (transport === 'http') {
    const handler = createMcpHandler(server);
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        }),
      );
      return client.getNegotiatedProtocolVersion();
    } finally {
      await client.close();
      await handler.close();
    }
  }
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const mcp = server();
  await mcp.connect(serverSide);
  try {
    await client.connect(clientSide);
    return client.getNegotiatedProtocolVersion();
  } finally {
    await client.close();
    await mcp.close();
  }
}

describe('revisionOptions', () => {
  it.each([
    ['2025-06-18', 'linked pair'],
    ['2025-11-25', 'linked pair'],
    ['2025-11-25', 'http'],
    ['2026-07-28', 'http'],
  ] as const)('makes a client speak %s (%s)', async (choice, transport) => {
    expect(await negotiated(choice, transport)).toBe(choice);
  });

  it("'auto' takes the newest revision a server offers", async () => {
    expect(await negotiated('auto', 'http')).toBe('2026-07-28');
  });

  it('lists every choice, oldest revision first and auto last', () => {
    expect(REVISION_CHOICES).toEqual(['2025-06-18', '2025-11-25', '2026-07-28', 'auto']);
    expect(Object.isFrozen(REVISION_CHOICES)).toBe(true);
  });

  it('hands out fresh options each time, so a caller that changes them changes nobody else', () => {
    const first = revisionOptions('2025-06-18');
    first.supportedProtocolVersions?.push('2025-11-25');
    expect(revisionOptions('2025-06-18')).toEqual({ supportedProtocolVersions: ['2025-06-18'] });
  });

  it.each(['2024-11-05', 'toString', '__proto__', ''])('refuses %j rather than guessing a revision', (bad) => {
    expect(() => revisionOptions(bad as RevisionChoice)).toThrow(`Unknown protocol revision ${JSON.stringify(bad)}.`);
  });
});

describe('parseRevisionChoice', () => {
  it('reads a revision or auto, and leaves the default to the caller when neither is given', () => {
    for (const choice of REVISION_CHOICES)
      expect(parseRevisionChoice({ revision: choice })).toEqual({ choice, deprecated: false });
    expect(parseRevisionChoice({})).toEqual({ choice: undefined, deprecated: false });
  });

  it('takes the deprecated era words as aliases, and says they are deprecated', () => {
    expect(parseRevisionChoice({ era: 'legacy' })).toEqual({ choice: '2025-11-25', deprecated: true });
    expect(parseRevisionChoice({ era: 'modern' })).toEqual({ choice: '2026-07-28', deprecated: true });
    expect(parseRevisionChoice({ era: 'auto' })).toEqual({ choice: 'auto', deprecated: true });
  });

  it.each([
    [{ revision: '2024-11-05' }, '--revision must be 2025-06-18, 2025-11-25, 2026-07-28, auto, not "2024-11-05"'],
    [{ revision: 'toString' }, '--revision must be'],
    [{ revision: 20260728 }, 'not 20260728'],
    [{ era: 'future' }, '--era (deprecated: use --revision) must be legacy, modern or auto, not "future"'],
    [{ era: '__proto__' }, 'must be legacy, modern or auto'],
    [{ era: ['legacy'] }, 'not ["legacy"]'],
    [{ revision: 'auto', era: 'auto' }, 'give --revision or --era, not both'],
  ])('refuses %j in words', (given, words) => {
    expect(() => parseRevisionChoice(given)).toThrow(RevisionChoiceError);
    expect(() => parseRevisionChoice(given)).toThrow(words);
  });

  it('names the setting as the caller calls it', () => {
    expect(() => parseRevisionChoice({ era: 'x' }, { revision: 'servers[0].revision', era: 'servers[0].era' })).toThrow(
      'servers[0].era (deprecated: use servers[0].revision) must be',
    );
  });
});
