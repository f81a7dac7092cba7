import type { ClientQuirks, KnownClient } from './quirks.js';
import { KNOWN_CLIENTS, type KnownClientId } from './table.js';

/** What a client says about itself at `initialize` (or in a 2026-07-28 request's `_meta`). */
export interface ClientInfo {
  name: string;
  version?: string;
}

/**
 * The known client a `clientInfo` names, if any: the first entry of `KNOWN_CLIENTS` with a
 * pattern matching `clientInfo.name` (case-insensitive).
 *
 * @example
 * knownClientOf({ name: 'cursor-vscode', version: '1.0.0' })?.id // 'cursor'
 */
export function knownClientOf(info: ClientInfo | undefined): KnownClient | undefined {
  const name = typeof info?.name === 'string' ? info.name.trim() : '';
  if (name === '') return undefined;
  const seen = byName.get(name);
  if (seen !== undefined) return seen ?? undefined;
  const found = KNOWN_CLIENTS.find((c) => c.patterns.some((p) => p.test(name)));
  // Bounded by forgetting all at once: a server meets a handful of client names.
  if (byName.size >= NAMES_KEPT) byName.clear();
  byName.set(name, found ?? null);
  return found;
}

/**
 * Names already looked up (`null`: no known client). A 2026-07-28 client names itself in every
 * request, and a server asks once per call; the table is constant, so a name's answer is too.
 */
const byName = new Map<string, KnownClient | null>();
const NAMES_KEPT = 256;

/**
 * The quirks of the client a `clientInfo` names; none for a client we do not know.
 *
 * @example
 * if (clientQuirksOf(server.getClientVersion()).booleanAsChoice) …
 */
export function clientQuirksOf(info: ClientInfo | undefined): ClientQuirks {
  return knownClientOf(info)?.quirks ?? {};
}

/**
 * A known client by its id.
 *
 * @example
 * knownClient('trae').announces // 'Trae'
 */
export function knownClient(id: KnownClientId): KnownClient {
  const found = KNOWN_CLIENTS.find((c) => c.id === id);
  if (!found) throw new TypeError(`Unknown client id "${id}".`);
  return found;
}

/**
 * True for the id of a known client.
 *
 * @example
 * if (!isKnownClientId(flag)) throw new UsageError(`unknown client ${flag}`);
 */
export function isKnownClientId(value: unknown): value is KnownClientId {
  return typeof value === 'string' && KNOWN_CLIENTS.some((c) => c.id === value);
}
