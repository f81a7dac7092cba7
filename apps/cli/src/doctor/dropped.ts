import type { Client, StandardSchemaV1Sync, Tool } from '@modelcontextprotocol/client';

/** Pages of `tools/list` read before giving up, as `listToolsSafely` reads them. */
const MAX_PAGES = 100;

/**
 * The names the server lists that the SDK's client left out of `listed` on its own: on 2026-07-28
 * over HTTP it drops a tool whose `x-mcp-header` declarations are invalid (SEP-2243 says a client
 * must), saying so only in a console warning — so no client built on it can call that tool, and
 * doctor, reading the SDK's list, would not have known it was there. Read from `tools/list` as the
 * server sent it, every page; a listing that cannot be read so adds nothing.
 *
 * @example
 * const dropped = await droppedBySdk(conn.client, tools, 10_000); // ['x-bad-header-tool']
 */
export async function droppedBySdk(client: Client, listed: readonly Tool[], timeout: number): Promise<string[]> {
  const kept = new Set(listed.map((t) => t.name));
  const dropped = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        NAMES_PAGE,
        { timeout },
      );
      for (const name of result.names) if (!kept.has(name)) dropped.add(name);
      cursor = result.nextCursor;
      if (cursor === undefined) return [...dropped];
    }
  } catch {
    // The SDK read this list a moment ago: a second reading that fails tells nothing more.
  }
  return [];
}

/** A page of `tools/list` read for its tools' names alone (a tool without one is the SDK's refusal, reported apart). */
const NAMES_PAGE: StandardSchemaV1Sync<unknown, { names: string[]; nextCursor?: string }> = {
  '~standard': {
    version: 1,
    vendor: 'elicitkit',
    validate(value: unknown) {
      const v = value as { tools?: unknown; nextCursor?: unknown } | null;
      if (typeof v !== 'object' || v === null || !Array.isArray(v.tools))
        return { issues: [{ message: 'tools/list did not answer with a list of tools' }] };
      const names = v.tools.flatMap((t: { name?: unknown } | null) =>
        typeof t === 'object' && t !== null && typeof t.name === 'string' ? [t.name] : [],
      );
      return { value: { names, ...(typeof v.nextCursor === 'string' ? { nextCursor: v.nextCursor } : {}) } };
    },
  },
};
