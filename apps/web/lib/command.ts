import { ArgumentError, toolArguments } from '@elicitkit/client';
import { inexactNumberIn, quoted } from './exact-json';
import type { Locale } from './locale';

/**
 * The chat's `/tool …` commands: `/tool k=v …`, where a value may be quoted
 * (`sql="SELECT COUNT(*) FROM orders"`), or `/tool {json}`. A command written wrong is told to the
 * person in their language and in the chat's terms (not the CLI's `--args`).
 */

/** What can be wrong with a command line before the tool's schema is looked at. */
export type CommandProblem =
  | { kind: 'unterminated-quote'; quote: '"' | "'"; at: number }
  | { kind: 'bad-json'; detail: string }
  | { kind: 'too-deep'; max: number }
  | { kind: 'inexact-number'; written: string; read: string };

/**
 * How deep a command's arguments may nest. Deeper, they could not even be written into the chat's
 * stream (JSON.stringify recurses: a few thousand levels ended the turn with "Maximum call stack
 * size exceeded"); no tool's arguments come near it.
 */
export const MAX_ARGUMENT_DEPTH = 100;

export class CommandError extends Error {
  readonly problem: CommandProblem;
  constructor(problem: CommandProblem) {
    super(problem.kind);
    this.name = 'CommandError';
    this.problem = problem;
  }
}

/** One table per locale: how a call is refused, and a sentence for every problem. */
const EXPLAIN: Record<
  Locale,
  { cannotCall: (tool: string, why: string) => string; problem: (tool: string, p: CommandProblem) => string }
> = {
  en: {
    cannotCall: (tool, why) => `Cannot call ${tool}: ${why}`,
    problem: (tool, p) => {
      switch (p.kind) {
        case 'unterminated-quote':
          return `the ${p.quote} at character ${p.at + 1} of the arguments is never closed. Close it, or write \\${p.quote} for a ${p.quote} inside the value.`;
        case 'bad-json':
          return `the arguments are not valid JSON (${p.detail}). Write /${tool} {"name": "value"}, or /${tool} name=value.`;
        case 'too-deep':
          return `the arguments are nested more than ${p.max} levels deep; no tool takes that. Nothing was sent.`;
        case 'inexact-number':
          return `the number ${quoted(p.written)} cannot be sent exactly: it would arrive as ${quoted(p.read)}. Nothing was sent.`;
      }
    },
  },
  zh: {
    cannotCall: (tool, why) => `无法调用 ${tool}：${why}`,
    problem: (tool, p) => {
      switch (p.kind) {
        case 'unterminated-quote':
          return `参数第 ${p.at + 1} 个字符处的 ${p.quote} 没有闭合。请补上闭合的 ${p.quote}；值里要用 ${p.quote} 时写成 \\${p.quote}。`;
        case 'bad-json':
          return `参数不是有效的 JSON（${p.detail}）。请写成 /${tool} {"name": "value"}，或 /${tool} name=value。`;
        case 'too-deep':
          return `参数嵌套超过 ${p.max} 层，没有工具接受这样的参数。未发送任何请求。`;
        case 'inexact-number':
          return `数字 ${quoted(p.written)} 无法精确发送：它会变成 ${quoted(p.read)}。未发送任何请求。`;
      }
    },
  },
};

/**
 * The tool name and the rest of a `/tool …` line.
 *
 * @example
 * splitCommand('/execute_sql sql="SELECT 1"'); // { tool: 'execute_sql', rest: 'sql="SELECT 1"' }
 */
export function splitCommand(line: string): { tool: string; rest: string } {
  const body = line.replace(/^\//, '').trim();
  const space = body.search(/\s/);
  return space < 0 ? { tool: body, rest: '' } : { tool: body.slice(0, space), rest: body.slice(space).trim() };
}

/**
 * The `k=v` words of a command. Words are split on whitespace, except inside quotes: a word, or
 * its value (right after the first `=`), may start with `"` or `'`, which runs to the matching
 * quote; inside, a backslash takes the next character as it is (`\"`, `\'`, `\\`). A quote anywhere
 * else (`name=O'Brien`) is an ordinary character, as is a backslash outside quotes. A quote that is
 * never closed is a `CommandError`, not a guess.
 *
 * @example
 * commandWords('sql="SELECT COUNT(*) FROM orders" limit=5'); // ['sql=SELECT COUNT(*) FROM orders', 'limit=5']
 */
export function commandWords(text: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (i >= text.length) break;
    let word = '';
    let sawEquals = false;
    let valueStart = true; // at the start of the word, or right after its first `=`
    while (i < text.length && !/\s/.test(text.charAt(i))) {
      const c = text.charAt(i);
      if (valueStart && (c === '"' || c === "'")) {
        const open = i;
        i++;
        let closed = false;
        while (i < text.length) {
          const d = text.charAt(i);
          if (d === '\\' && i + 1 < text.length) {
            word += text.charAt(i + 1);
            i += 2;
          } else if (d === c) {
            closed = true;
            i++;
            break;
          } else {
            word += d;
            i++;
          }
        }
        if (!closed) throw new CommandError({ kind: 'unterminated-quote', quote: c, at: open });
        valueStart = false;
        continue;
      }
      word += c;
      i++;
      valueStart = false;
      if (c === '=' && !sawEquals) {
        sawEquals = true;
        valueStart = true;
      }
    }
    words.push(word);
  }
  return words;
}

/**
 * The arguments of `/tool rest` for a tool with `inputSchema`: `rest` is `{json}` (one object) or
 * `k=v` words (`commandWords`), each coerced by the schema (`toolArguments`). A mistake is a
 * sentence for the person, in their language.
 *
 * @example
 * commandArguments('execute_sql', schema, 'sql="SELECT 1"', 'en'); // { args: { sql: 'SELECT 1' } }
 * commandArguments('execute_sql', schema, '{bad', 'en'); // { message: 'Cannot call execute_sql: the arguments are not valid JSON (…)…' }
 */
export function commandArguments(
  tool: string,
  inputSchema: unknown,
  rest: string,
  locale: Locale,
): { args: Record<string, unknown> } | { message: string } {
  const explain = EXPLAIN[locale];
  const fail = (why: string) => ({ message: explain.cannotCall(tool, why) });
  try {
    const raw = rest.trim();
    if (raw.startsWith('{')) {
      try {
        JSON.parse(raw); // here, to say what is wrong in the chat's terms; `toolArguments` reads it
      } catch (error) {
        throw new CommandError({ kind: 'bad-json', detail: error instanceof Error ? error.message : String(error) });
      }
      // JSON.parse would round it silently: 2.00000000000000001 would be sent as 2.
      const inexact = inexactNumberIn(raw);
      if (inexact) throw new CommandError({ kind: 'inexact-number', ...inexact });
      return { args: shallowEnough(toolArguments(inputSchema, [], raw)) };
    }
    // A value may be JSON here too (an object or list argument).
    return { args: shallowEnough(toolArguments(inputSchema, commandWords(raw), undefined)) };
  } catch (error) {
    if (error instanceof CommandError) return fail(explain.problem(tool, error.problem));
    if (error instanceof ArgumentError) return fail(error.message);
    return { message: String(error) };
  }
}

/** `args`, unless they nest deeper than `MAX_ARGUMENT_DEPTH` (measured without recursing). */
function shallowEnough(args: Record<string, unknown>): Record<string, unknown> {
  const pending: [value: unknown, depth: number][] = [[args, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, depth] = next;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_ARGUMENT_DEPTH) throw new CommandError({ kind: 'too-deep', max: MAX_ARGUMENT_DEPTH });
    for (const inner of Object.values(value)) pending.push([inner, depth + 1]);
  }
  return args;
}
