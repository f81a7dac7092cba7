/**
 * A known client's quirks applied to a question, beside the per-revision downgrade the channel
 * does: the form is adapted here (a boolean asked as a Yes/No choice for Trae, one line of text
 * for a text-only Cline), and the answer is read back into the form's own types before the form
 * checks it, so a tool's code and types never change with the client.
 */
import type { AnyForm, FormSchema, Issue, Revision } from '@elicitkit/form';
import { type Adaptation, adaptForClient, type KnownClient, restoreAnswer } from '@elicitkit/form/clients';
import type { RawAnswer } from './channel/channel.js';
import { type Locale, MESSAGES } from './messages.js';

/** The form a client is sent, or why its quirks cannot show it faithfully. */
export type ClientShaped = { ok: true; schema: FormSchema; adaptation?: Adaptation } | { ok: false; detail: string };

/**
 * Shapes `form` for `client`'s quirks. `adapt: false` (the ask's opt-out) or an unknown client
 * sends the form unchanged.
 *
 * @example
 * const shaped = shapeForClient(form, peer.client, locale, options.adaptToClient !== false);
 */
export function shapeForClient(
  form: AnyForm,
  client: KnownClient | undefined,
  locale: Locale,
  adapt: boolean,
): ClientShaped {
  if (!client || !adapt) return { ok: true, schema: form.schema };
  const { schema } = form;
  // A built form's schema is frozen, so its shape for a client is worked out once per client and
  // language; a hand-made form whose schema could still change is shaped on every ask.
  if (!Object.isFrozen(schema)) return shapeNow(schema, client, locale);
  let byClient = SHAPED.get(schema);
  if (!byClient) {
    byClient = new Map();
    SHAPED.set(schema, byClient);
  }
  const key = `${client.id}\0${locale}`;
  let shaped = byClient.get(key);
  if (!shaped) {
    shaped = freezeShaped(shapeNow(schema, client, locale));
    byClient.set(key, shaped);
  }
  return shaped;
}

const SHAPED = new WeakMap<FormSchema, Map<string, ClientShaped>>();

function shapeNow(schema: FormSchema, client: KnownClient, locale: Locale): ClientShaped {
  const adapted = adaptForClient(schema, client.quirks, MESSAGES[locale].adapt);
  if (!adapted.ok) return { ok: false, detail: adapted.detail };
  return adapted.adaptation
    ? { ok: true, schema: adapted.schema, adaptation: adapted.adaptation }
    : { ok: true, schema: adapted.schema };
}

/** Shared by every ask of the form: frozen all the way down, so that no ask can change it for the next. */
function freezeShaped(shaped: ClientShaped): ClientShaped {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    for (const inner of Object.values(value)) freeze(inner);
    Object.freeze(value);
  };
  freeze(shaped);
  return shaped;
}

/**
 * The answer with its content read back into the form's types, by the adaptation the question was
 * sent with (which the 2026-07-28 sealed state carries between rounds), and the issues of an answer
 * outside the shape that was sent (never guessed at: they make the outcome `invalid`).
 */
export function readBack<R extends RawAnswer>(raw: R, form: AnyForm, revision: Revision): { raw: R; issues: Issue[] } {
  if (raw.kind !== 'answer' || !raw.content || !raw.adaptation) return { raw, issues: [] };
  const read = restoreAnswer(raw.content, raw.adaptation, form.schema, revision);
  return read.ok ? { raw: { ...raw, content: read.value }, issues: [] } : { raw, issues: read.issues };
}
