import { visit } from 'jsonc-parser';
import { credentialUrlsShown } from '../shown-url.js';

/** The objects of an MCP server entry whose values are credentials: HTTP headers, a process's environment. */
const SECRET_HOLDERS = new Set(['headers', 'env']);

/** A config as a dry run shows it, and the values it left out, by their path. */
export interface ShownConfig {
  text: string;
  /** Whether anything was left out. */
  masked: boolean;
  /** Each value shown otherwise, as written and as shown, keyed by its JSON path. */
  hidden: Map<string, { value: string; shown: string }>;
}

/**
 * A client's config as a dry run prints it: each string value of an entry's `headers` or `env`
 * shown as `"…"`, and each URL without its `user:password@`, its query values and its fragment
 * (as every URL the CLI prints). A line stays a line, so a diff of two shown texts is the diff of
 * the two texts with the credentials left out. Given `before` (the file's shown version), a value
 * that differs from the one at the same place there but would be shown the same is marked
 * `(another value)`, so the diff still shows that it changes.
 *
 * @example
 * shownConfig('{"s":{"headers":{"Authorization":"Bearer x"}}}').text // '{"s":{"headers":{"Authorization":"…"}}}'
 */
export function shownConfig(text: string, before?: ShownConfig): ShownConfig {
  const edits: { offset: number; length: number; shown: string }[] = [];
  const hidden: ShownConfig['hidden'] = new Map();
  visit(
    text,
    {
      onLiteralValue(value, offset, length, _line, _column, pathSupplier) {
        if (typeof value !== 'string') return;
        const path = pathSupplier();
        const holder = path.at(-2);
        const secret = typeof holder === 'string' && SECRET_HOLDERS.has(holder);
        let shown = secret ? '…' : credentialUrlsShown(value);
        if (shown === value) return;
        const key = JSON.stringify(path);
        const then = before?.hidden.get(key);
        if (then && then.value !== value && then.shown === shown) shown = `${shown} (another value)`;
        hidden.set(key, { value, shown });
        edits.push({ offset, length, shown: JSON.stringify(shown) });
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  // In one pass: a 50 MB ~/.claude.json holds thousands of projects with an env each.
  const parts: string[] = [];
  let at = 0;
  for (const edit of edits) {
    parts.push(text.slice(at, edit.offset), edit.shown);
    at = edit.offset + edit.length;
  }
  parts.push(text.slice(at));
  return { text: parts.join(''), masked: edits.length > 0, hidden };
}
