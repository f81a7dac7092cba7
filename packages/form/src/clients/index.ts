/**
 * Known clients and their quirks: the table, the lookup by `clientInfo`, and the adaptation of a
 * form to a client's quirks (run before the per-revision downgrade).
 */
export { type Adaptation, type Adapted, type AdaptWords, adaptForClient, restoreAnswer, YES_NO } from './adapt.js';
export { type ClientInfo, clientQuirksOf, isKnownClientId, knownClient, knownClientOf } from './lookup.js';
export type { ClientLooks, ClientQuirks, ClientSupport, Evidence, KnownClient } from './quirks.js';
export { KNOWN_CLIENTS, type KnownClientId } from './table.js';
