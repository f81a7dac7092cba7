import { notAsTyped } from '@elicitkit/client';
import { MAX_BODY_DEPTH, nestsDeeper } from './depth';
import { inexactNumberIn, notAsTypedIn, quoted } from './exact-json';
import type { Locale } from './locale';

/** What `readJson` refuses a body for, in each language. */
const TEXTS: Record<
  Locale,
  {
    notJsonType: string;
    tooLarge: (limit: number) => string;
    notUtf8: string;
    notJson: string;
    notAsTyped: (path: string, why: string) => string;
    inexact: (written: string, read: string) => string;
    tooDeep: (max: number) => string;
  }
> = {
  en: {
    notJsonType: 'Send JSON (content-type: application/json).',
    tooLarge: (limit) => `The body is larger than ${limit} bytes.`,
    notUtf8: 'The body is not valid UTF-8 (JSON must be).',
    notJson: 'The body is not valid JSON.',
    notAsTyped: (path, why) => `${path}: ${why}. Send the value meant.`,
    inexact: (written, read) =>
      `The number ${written} cannot be sent exactly: it would arrive as ${read}. Send the value meant.`,
    tooDeep: (max) => `The body nests objects and arrays deeper than ${max} levels.`,
  },
  zh: {
    notJsonType: '请发送 JSON（content-type: application/json）。',
    tooLarge: (limit) => `请求体超过 ${limit} 字节。`,
    notUtf8: '请求体不是有效的 UTF-8（JSON 必须是）。',
    notJson: '请求体不是有效的 JSON。',
    notAsTyped: (path, why) => `${path}：${why}。请发送本来要发送的值。`,
    inexact: (written, read) => `数字 ${written} 无法精确发送：它会变成 ${read}。请发送本来要发送的值。`,
    tooDeep: (max) => `请求体中对象和数组的嵌套超过 ${max} 层。`,
  },
};

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; error: string };

/** How a body is read: what counts as JSON, the language it is refused in, whether a person typed it. */
export interface ReadJsonOptions {
  /** The content types taken as JSON (a beacon can only send `text/plain`). */
  types?: readonly string[];
  /** The language every refusal is said in (the page's: `requestLocale`); English by default. */
  locale?: Locale;
  /**
   * Typed by a person into a form (an answer): held to what the CLI holds its answers files to
   * (`notAsTyped` with `answer`).
   */
  typed?: boolean;
}

/**
 * Reads a JSON body, refusing (413) anything over `limit` bytes before parsing it. A body `typed`
 * by a person is held to what the CLI holds its answers files to (`notAsTyped`, `answer`): a
 * number that would arrive as another (`-0`, `1e400`, `9007199254740993`), a key given twice, half
 * a character are refused
 * naming where (`$.content.ratio`); any other body for nesting past `MAX_BODY_DEPTH`, and for a
 * number read as another value.
 */
export async function readJson(
  request: Request,
  limit: number,
  { types = ['application/json'], locale = 'en', typed = false }: ReadJsonOptions = {},
): Promise<JsonBody> {
  const say = TEXTS[locale];
  // The media type before any parameter, compared whole and without case (RFC 9110): `Application/JSON`
  // is JSON, and `text/plain; x=application/json` is not.
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!types.includes(type)) {
    return { ok: false, status: 415, error: say.notJsonType };
  }
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) return { ok: false, status: 413, error: say.tooLarge(limit) };
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    size += next.value.byteLength;
    if (size > limit) {
      await reader?.cancel();
      return { ok: false, status: 413, error: say.tooLarge(limit) };
    }
    chunks.push(next.value);
  }
  let text: string;
  try {
    // Fatal: bytes that are not UTF-8 would otherwise become U+FFFD, an answer nobody sent.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
  } catch {
    return { ok: false, status: 400, error: say.notUtf8 };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, error: say.notJson };
  }
  if (typed) {
    const wrong = notAsTyped(text, { answer: true });
    if (wrong)
      return {
        ok: false,
        status: 400,
        error: say.notAsTyped(quoted(wrong.path, 200), notAsTypedIn(locale, wrong.reason)),
      };
    return { ok: true, value };
  }
  // Every route walks what it is sent (JSON.stringify, the turn's own checks) recursively: past
  // the depth anything it carries may have, a clear refusal instead of a stack overflow's 500.
  if (nestsDeeper(value, MAX_BODY_DEPTH)) return { ok: false, status: 400, error: say.tooDeep(MAX_BODY_DEPTH) };
  // A number JSON would read as another value (2.00000000000000001 as 2) is refused, not rounded.
  const inexact = inexactNumberIn(text);
  if (inexact)
    return {
      ok: false,
      status: 400,
      error: say.inexact(quoted(inexact.written), quoted(inexact.read)),
    };
  return { ok: true, value };
}
