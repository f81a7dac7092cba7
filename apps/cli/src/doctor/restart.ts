/**
 * Troubleshooting row 13 ("after a server restart the form no longer appears: the client cached
 * the old capabilities"): doctor connects, records what the server declared and listed, connects
 * again to a fresh start (a new process over stdio; a new session over HTTP), and compares.
 */

import { listToolsSafely } from '@elicitkit/client';
import { jsonText } from '@elicitkit/client/typed-json';
import type { Client } from '@modelcontextprotocol/client';
import { urlsShown } from '../shown-url.js';
import { openConnection } from './connection.js';
import type { Endpoint } from './endpoint.js';
import type { Profile } from './profiles.js';

/** What doctor found comparing two starts of the server. */
export interface RestartCheck {
  /** False when a start could not be reached (then `error` says why). */
  compared: boolean;
  /** What differs between the two starts, one line each; empty when they agree. */
  changes: string[];
  error?: string;
}

/** What a client caches about a server when it connects. */
interface Declared {
  capabilities: Record<string, unknown>;
  tools: Map<string, string>;
}

/**
 * Connects twice as `profile` and compares the server's capabilities and tool list (names and
 * input schemas) between the two starts.
 *
 * @example
 * const check = await checkRestart(endpointFor(target), PROFILES[0], 10_000);
 * if (check.changes.length > 0) console.log(check.changes.join('\n'));
 */
export async function checkRestart(endpoint: Endpoint, profile: Profile, timeoutMs: number): Promise<RestartCheck> {
  try {
    const first = await declaredBy(endpoint, profile, timeoutMs);
    const second = await declaredBy(endpoint, profile, timeoutMs);
    return { compared: true, changes: differences(first, second) };
  } catch (error) {
    return { compared: false, changes: [], error: urlsShown(error instanceof Error ? error.message : String(error)) };
  }
}

async function declaredBy(endpoint: Endpoint, profile: Profile, timeoutMs: number): Promise<Declared> {
  const conn = await openConnection(
    endpoint,
    profile,
    { onAsks: () => {}, answer: () => ({ action: 'cancel' }) },
    timeoutMs,
  );
  try {
    return { capabilities: capabilitiesOf(conn.client), tools: await toolsOf(conn.client, timeoutMs) };
  } finally {
    await conn.close();
  }
}

function capabilitiesOf(client: Client): Record<string, unknown> {
  return (client.getServerCapabilities() ?? {}) as Record<string, unknown>;
}

async function toolsOf(client: Client, timeoutMs: number): Promise<Map<string, string>> {
  const { tools } = await listToolsSafely(client, { timeout: timeoutMs });
  return new Map(tools.map((t) => [t.name, canonical(t.inputSchema)]));
}

function differences(a: Declared, b: Declared): string[] {
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(a.capabilities), ...Object.keys(b.capabilities)])].sort()) {
    const [before, after] = [a.capabilities[key], b.capabilities[key]];
    if (before === undefined) out.push(`capability "${key}" appeared: ${canonical(after)}`);
    else if (after === undefined) out.push(`capability "${key}" disappeared (was ${canonical(before)})`);
    else if (canonical(before) !== canonical(after))
      out.push(`capability "${key}" changed from ${canonical(before)} to ${canonical(after)}`);
  }
  for (const name of a.tools.keys()) if (!b.tools.has(name)) out.push(`tool "${name}" disappeared`);
  for (const name of b.tools.keys()) if (!a.tools.has(name)) out.push(`tool "${name}" appeared`);
  for (const [name, schema] of a.tools) {
    const later = b.tools.get(name);
    if (later !== undefined && later !== schema) out.push(`tool "${name}" changed its input schema`);
  }
  return out;
}

/** JSON with sorted keys, so that equal declarations compare equal; at any depth a server nests them. */
function canonical(value: unknown): string {
  return jsonText(value, { sortKeys: true }) ?? 'null';
}
