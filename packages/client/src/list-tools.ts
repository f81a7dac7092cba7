import {
  type CacheableRequestOptions,
  type Client,
  isSpecType,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1Sync,
  type Tool,
} from '@modelcontextprotocol/client';
import { jsonText } from './json-text.js';

/**
 * A name `tools/list` gives more than one tool (on one page or across pages): `count` of them, and
 * whether they are all the same definition (a page repeated) or differ — then a call of that name
 * reaches whichever the server picks, and a client cannot tell which.
 */
export interface DuplicateName {
  name: string;
  count: number;
  same: boolean;
}

/** What `listToolsSafely` read. */
export interface SafeToolList {
  /** The tools taken, in the server's order. */
  tools: Tool[];
  /** The names of the tools left out (not a tool as MCP defines one); `(a tool without a name)` for one with none. */
  skipped: string[];
  /** Whether the list was read tool by tool: the SDK cached none, so a call must pass `toolDefinition`. */
  fallback: boolean;
  /** Why the SDK did not take the whole list, when it did not. */
  refusal?: string;
  /** Each name the whole list (every page) gives more than one tool. */
  duplicates: DuplicateName[];
}

/** Pages of `tools/list` followed before giving up on a server that never stops sending a cursor. */
const MAX_PAGES = 100;

/**
 * `client.listTools()`, surviving one hostile tool. The SDK checks the whole list against its
 * schema: one tool it refuses (a description that is a number), or whose schema nests a thousand
 * levels deep (its check overflows the stack), takes every other tool with it. Then the list is
 * read again, each tool on its own: one the SDK's check takes or cannot finish (too deep) is kept —
 * a host's own schema check names what is wrong with it, as for any broken tool — one it refuses is
 * left out, and `skipped` says so. `fallback` is true when the list was read that way, `refusal`
 * saying why the whole list was not taken: a call must then hand its tool's definition to
 * `callTool` (`toolDefinition`), since the SDK cached none. `duplicates` names each tool name the
 * whole list (every page) gives more than once.
 *
 * @example
 * const { tools, skipped } = await listToolsSafely(client, { cacheMode: 'bypass' });
 * for (const name of skipped) console.warn(`${name}: not a tool as MCP defines one; left out`);
 */
export async function listToolsSafely(client: Client, options: CacheableRequestOptions = {}): Promise<SafeToolList> {
  let refusal: string;
  try {
    const { tools } = await client.listTools(undefined, options);
    return { tools, skipped: [], fallback: false, duplicates: duplicatesIn(tools) };
  } catch (error) {
    if (!(error instanceof RangeError || (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult)))
      throw error;
    refusal = error instanceof RangeError ? 'its check of a schema overflowed the stack' : (error as Error).message;
  }
  const tools: Tool[] = [];
  const skipped: string[] = [];
  /** Every tool read with a name, taken or not: a refused tool and a taken one of one name are two tools. */
  const named: RawTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      TOOL_PAGE,
      options,
    );
    for (const tool of result.tools) {
      if (typeof tool.name === 'string') named.push(tool);
      if (typeof tool.name !== 'string' || typeof tool.inputSchema !== 'object' || tool.inputSchema === null) {
        skipped.push(typeof tool.name === 'string' ? tool.name : '(a tool without a name)');
        continue;
      }
      if (takenBySdk(tool)) tools.push(tool as unknown as Tool);
      else skipped.push(tool.name);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return { tools, skipped, fallback: true, refusal, duplicates: duplicatesIn(named) };
  }
  // What was read is not the list: a tool past it would be reported as not there.
  throw new Error(`tools/list did not end after ${MAX_PAGES} pages: the server keeps sending a next cursor`);
}

/**
 * The names `tools` gives more than one tool, in the order of their first appearance. Only those
 * tools' definitions are written out to compare, at any depth (`jsonText`): a definition nested too
 * deep for `JSON.stringify` is a server's to send, not a reason to lose the list.
 */
function duplicatesIn(tools: readonly RawTool[]): DuplicateName[] {
  const byName = new Map<string, RawTool[]>();
  for (const tool of tools) {
    const name = tool.name as string;
    const seen = byName.get(name);
    if (seen) seen.push(tool);
    else byName.set(name, [tool]);
  }
  return [...byName]
    .filter(([, named]) => named.length > 1)
    .map(([name, named]) => {
      const definitions = named.map((tool) => jsonText(tool));
      return { name, count: named.length, same: definitions.every((d) => d === definitions[0]) };
    });
}

/** Whether the SDK takes `tool` as a tool; one too deep for its check to finish counts as taken. */
function takenBySdk(tool: unknown): boolean {
  try {
    return isSpecType.Tool(tool);
  } catch (error) {
    if (error instanceof RangeError) return true;
    throw error;
  }
}

interface RawTool {
  name?: unknown;
  inputSchema?: unknown;
}

/** A page of `tools/list` checked only as a list of objects with a cursor: each tool is read on its own. */
const TOOL_PAGE: StandardSchemaV1Sync<unknown, { tools: RawTool[]; nextCursor?: string }> = {
  '~standard': {
    version: 1,
    vendor: 'elicitkit',
    validate(value: unknown) {
      const v = value as { tools?: unknown; nextCursor?: unknown } | null;
      if (typeof v !== 'object' || v === null || !Array.isArray(v.tools))
        return { issues: [{ message: 'tools/list did not answer with a list of tools' }] };
      if (v.tools.some((t) => typeof t !== 'object' || t === null || Array.isArray(t)))
        return { issues: [{ message: 'tools/list answered with a tool that is not an object' }] };
      if (v.nextCursor !== undefined && typeof v.nextCursor !== 'string')
        return { issues: [{ message: 'tools/list answered with a cursor that is not text' }] };
      return {
        value: {
          tools: v.tools as RawTool[],
          ...(typeof v.nextCursor === 'string' ? { nextCursor: v.nextCursor } : {}),
        },
      };
    },
  },
};
