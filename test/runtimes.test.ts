/**
 * The server library on Bun and Deno (both installed from npm as dev dependencies): the built
 * package's `createHttpHandler().fetch` served by each runtime's own server (runtimes/serve.mjs),
 * called by the SDK's Node client on every revision — a question asked, answered, and the effect
 * run once. A runtime whose binary is missing is skipped with a printed line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { revisionOptions } from '@elicitkit/client';
import type { Revision } from '@elicitkit/form';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVE = join(ROOT, 'test/runtimes/serve.mjs');

const RUNTIMES = {
  bun: [join(ROOT, 'node_modules/.bin/bun'), SERVE],
  deno: [
    join(ROOT, 'node_modules/.bin/deno'),
    'run',
    '--no-prompt',
    '--allow-net',
    '--allow-read',
    '--allow-env',
    SERVE,
  ],
} as const;

const REVISIONS: Revision[] = ['2025-06-18', '2025-11-25', '2026-07-28'];

for (const [runtime, [binary, ...args]] of Object.entries(RUNTIMES)) {
  const present = existsSync(binary);
  if (!present) console.log(`runtimes.test: ${runtime} is not installed (${binary}); its check is skipped`);

  describe.skipIf(!present)(`the server library on ${runtime}`, () => {
    let child: ChildProcess | undefined;
    let url = '';

    beforeAll(async () => {
      child = spawn(binary, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      url = await new Promise<string>((resolve, reject) => {
        child?.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const found = /listening (\S+)/.exec(output);
          if (found) resolve(found[1] as string);
        });
        child?.stderr?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child?.on('exit', (code) => reject(new Error(`${runtime} exited (${code}) before listening:\n${output}`)));
      });
    }, 60_000);

    afterAll(() => {
      child?.kill();
    });

    for (const revision of REVISIONS) {
      it(`asks, takes the answer and acts, for a ${revision} client`, async () => {
        const client = new Client(
          { name: 'runtime-check', version: '1' },
          { capabilities: { elicitation: { form: {} } }, ...revisionOptions(revision) },
        );
        const asked: string[] = [];
        client.setRequestHandler('elicitation/create', async (request) => {
          asked.push(String(request.params.message));
          return { action: 'accept', content: { env: 'prod' } };
        });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        try {
          const result = await client.callTool({ name: 'deploy', arguments: { service: 'api' } }, { timeout: 30_000 });
          expect(asked).toEqual(['Which environment should api go to?']);
          expect(result.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
          expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        } finally {
          await client.close();
        }
      });
    }

    it('refuses a 2026-07-28 round whose sealed state was changed', async () => {
      const client = new Client(
        { name: 'runtime-check', version: '1' },
        {
          capabilities: { elicitation: { form: {} } },
          ...revisionOptions('2026-07-28'),
          inputRequired: { autoFulfill: false },
        },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const call = (extra: Record<string, unknown>) =>
          client.request(
            { method: 'tools/call', params: { name: 'deploy', arguments: { service: 'api' }, ...extra } },
            { allowInputRequired: true, timeout: 30_000 },
          );
        const first = (await call({})) as { requestState?: string };
        expect(typeof first.requestState).toBe('string');
        const state = first.requestState as string;
        const forged = `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`;
        const answer = { inputResponses: { env: { action: 'accept', content: { env: 'prod' } } } };
        await expect(call({ ...answer, requestState: forged })).rejects.toThrow();
        const kept = (await call({ ...answer, requestState: state })) as { structuredContent?: unknown };
        expect(kept.structuredContent).toMatchObject({ status: 'done', env: 'prod' });
      } finally {
        await client.close();
      }
    });
  });
}
