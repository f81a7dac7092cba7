/**
 * What a client does differently from the protocol's plain reading. Each quirk is data the server
 * acts on (`booleanAsChoice`, `textOnly`) or reports on (`foldsAfter`); the table in `table.ts`
 * says which client has which, and why we believe it.
 */
import type { Revision } from '../revision.js';

/** The quirks one client has. Absent means the client renders the form as the protocol says. */
export interface ClientQuirks {
  /** Booleans render badly (a broken or missing checkbox): ask them as a titled Yes/No single-select. */
  booleanAsChoice?: boolean;
  /** From this many questions in a row within one session, later ones are folded together. */
  foldsAfter?: number;
  /** The form is reduced to one line of text: a form of one field can be asked as text, no more. */
  textOnly?: boolean;
}

/** How well a client does elicitation, in the field notes' words. */
export type ClientSupport = 'full' | 'supported' | 'partial';

/** One piece of evidence for a table entry: where it was read, when, and whether we inferred it. */
export interface Evidence {
  /** What the entry rests on: a document and section, a public source, an observation. */
  source: string;
  /** When it was true (YYYY-MM, or YYYY-MM-DD). */
  date: string;
  /** True when the entry was reasoned out rather than read or observed. */
  inferred?: boolean;
}

/** How a client draws each kind of field, as a person sees it (for reports and `docs/clients.md`). */
export interface ClientLooks {
  form: string;
  boolean: string;
  select: string;
  text: string;
}

/** One known client: how to recognise it, how it renders elicitation, and the evidence. */
export interface KnownClient {
  /** Short id, used by `doctor --clients` and in audit records. */
  id: string;
  /** The product's display name. */
  name: string;
  /** Matched case-insensitively against `clientInfo.name`; the first entry that matches wins. */
  patterns: readonly RegExp[];
  /** The `clientInfo.name` the client sends, as far as we know (doctor announces it). */
  announces: string;
  /** The revision doctor plays the client on. */
  revision: Revision;
  support: ClientSupport;
  quirks: ClientQuirks;
  looks: ClientLooks;
  /** Evidence for the entry: its name, its rendering and its quirks. */
  evidence: readonly Evidence[];
}
