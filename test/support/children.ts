/**
 * How tests start a TypeScript entry of this repository as a child process: Node on its one-file
 * build made for this run by the global setup (test/support/child-bundles.ts), or, where no setup
 * made one (the browser tests' config), under tsx from the sources.
 */
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Each entry of `CHILDREN` (its path under the repository) → its build for this run. */
    childBundles: Record<string, string>;
  }
}

// From the path string: under jsdom `URL` is jsdom's, which `fileURLToPath` does not take.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Node's arguments that run a TypeScript file from the sources. */
export const SOURCE_NODE_ARGS = ['--import', 'tsx', '--conditions=@elicitkit/source'];

/**
 * The entries built for each run, by the name of their build. `cli` and `worker-main` are the
 * serve build's own (scripts/bundle-serve.ts): `elicitkit serve`, and opsdesk's shop worker.
 */
export const CHILDREN = {
  cli: 'apps/cli/src/cli.ts',
  'worker-main': 'apps/opsdesk/src/shop/worker-main.ts',
  'schema-worker': 'packages/client/src/schema-worker.ts',
  'stdio-server': 'packages/server/test/stdio-server.ts',
  'quirky-stdio': 'apps/cli/test/quirky-stdio.ts',
  'broken-stdio': 'apps/cli/test/broken-stdio.ts',
} as const;

const builds = (): Record<string, string> | undefined => inject('childBundles');

/**
 * Node's arguments that run `file` with `args`: its build for this run, or the sources under tsx
 * where this run has none. The CLI's build is the serve build, so as `bin/elicitkit.js` does, only
 * `serve` runs from it. A file the setup does not build is an error, not a silently slow start.
 *
 * @example spawn(process.execPath, nodeArgs(CLI, 'serve', '--stdio'))
 */
export function nodeArgs(file: string, ...args: string[]): string[] {
  const built = builds();
  const name = relative(ROOT, file).split('\\').join('/');
  if (built === undefined || (name === CHILDREN.cli && args[0] !== 'serve'))
    return [...SOURCE_NODE_ARGS, file, ...args];
  const entry = built[name];
  if (entry === undefined) throw new Error(`no build for ${name}: add it to CHILDREN in test/support/children.ts`);
  return [entry, ...args];
}

/** The shop worker this run built (opsdesk's stores start it as their shop's process), if any. */
export const builtShopWorker = (): string | undefined => builds()?.[CHILDREN['worker-main']];

/** The client's schema-check thread as this run built it (`SchemaValidator`), from the sources. */
export const builtSchemaWorker = (): string | undefined => builds()?.[CHILDREN['schema-worker']];

/**
 * An SDK stdio client transport to a child server whose stderr is piped and drained: kept off the
 * test's output, and read, since a pipe nobody reads blocks the child's writes once full (64 KB).
 * What the child said there is kept (its last 64 KB) for a test's failure message: `said()`.
 */
export function quietStdio(params: StdioServerParameters): StdioClientTransport & { said(): string } {
  const transport = new StdioClientTransport({ ...params, stderr: 'pipe' });
  let said = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString('utf8')).slice(-65_536);
  });
  return Object.assign(transport, { said: () => said });
}

/**
 * `client` connected to a child server over `quietStdio`; a start that fails says what the child
 * wrote on stderr (a stack trace, a refused option) beside the client's own error.
 */
export async function connectStdio(
  client: Client,
  params: StdioServerParameters,
  options?: Parameters<Client['connect']>[1],
): Promise<ReturnType<typeof quietStdio>> {
  const transport = quietStdio(params);
  try {
    await client.connect(transport, options);
  } catch (error) {
    const said = transport.said().trim();
    throw said
      ? new Error(`${(error as Error).message}; the server said on stderr:\n${said}`, { cause: error })
      : error;
  }
  return transport;
}
