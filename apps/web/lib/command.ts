import { ArgumentError, type ArgumentProblem, toolArguments, type ValueProblem } from '@elicitkit/client';
import { MAX_JSON_DEPTH, nestsDeeper } from './depth';
import { notAsTypedIn, quoted } from './exact-json';
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
  /** What `toolArguments` refuses (a value the schema cannot take, JSON not sent as typed), as data. */
  | { kind: 'argument'; problem: ArgumentProblem; message: string };

/** How deep a command's arguments may nest: as deep as anything the chat carries (`MAX_JSON_DEPTH`). */
export const MAX_ARGUMENT_DEPTH = MAX_JSON_DEPTH;

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
        case 'argument':
          return argumentEn(p.problem, p.message);
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
        case 'argument':
          return argumentZh(p.problem);
      }
    },
  },
};

/**
 * Where in the arguments JSON that would not be sent as typed is: `$.meta.ids[1]` for the `$.ids[1]`
 * of the value typed for `meta`, so `{json}` and `k={json}` name one place the same way.
 */
function pathOf(problem: Extract<ArgumentProblem, { kind: 'not-as-typed' }>): string {
  return 'args' in problem.in ? problem.path : `$.${problem.in.key}${problem.path.slice(1)}`;
}

/** `problem` for an English chat: the CLI's words (`message`), except where they name its `--args`. */
function argumentEn(problem: ArgumentProblem, message: string): string {
  switch (problem.kind) {
    case 'args-not-json':
      return `the arguments are not valid JSON (${problem.detail}).`;
    case 'args-not-object':
      return 'the arguments must be a JSON object.';
    case 'not-as-typed':
      return `in the arguments, ${quoted(pathOf(problem), 200)}: ${notAsTypedIn('en', problem.reason)}. Nothing was sent.`;
    default:
      return message;
  }
}

function valueZh(problem: ValueProblem): string {
  switch (problem.is) {
    case 'number':
      return '应为数字';
    case 'whole-number':
      return '应为整数';
    case 'boolean':
      return '应为 true 或 false';
    case 'json':
      return '应为 JSON';
    case 'one-of':
      return `应为以下之一：${problem.choices.join('、')}`;
    case 'not-as-typed':
      return notAsTypedIn('zh', problem.reason);
  }
}

/** `problem` for a Chinese chat. */
function argumentZh(problem: ArgumentProblem): string {
  const names = (known: string[]) => (known.length > 0 ? known.join('、') : '无');
  switch (problem.kind) {
    case 'args-not-json':
      return `参数不是有效的 JSON（${problem.detail}）。`;
    case 'args-not-object':
      return '参数必须是 JSON 对象。';
    case 'not-as-typed':
      return `参数中 ${quoted(pathOf(problem), 200)}：${notAsTypedIn('zh', problem.reason)}。未发送任何请求。`;
    case 'not-an-argument':
      return `“${problem.word}”不是参数：请写成 名称=值（参数：${names(problem.known)}）`;
    case 'half-character':
      return `${problem.key}：含有半个字符（单独的 UTF-16 代理项）：UTF-8 文本无法承载`;
    case 'unknown-argument':
      return `没有名为“${problem.key}”的参数（参数：${names(problem.known)}）`;
    case 'given-twice':
      return `${problem.key}：给了两次；请只给一次`;
    case 'bad-value':
      return `${problem.key}=${problem.raw}：${valueZh(problem.expected)}`;
  }
}

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
      // What JSON.parse would change silently (2.00000000000000001 sent as 2, -0 as 0, a key given
      // twice as its last value) is refused by `toolArguments`, as the CLI's --args: told below.
      return { args: shallowEnough(toolArguments(inputSchema, [], raw)) };
    }
    // A value may be JSON here too (an object or list argument).
    return { args: shallowEnough(toolArguments(inputSchema, commandWords(raw), undefined)) };
  } catch (error) {
    if (error instanceof CommandError) return fail(explain.problem(tool, error.problem));
    // Past the reader's own bound (deeper than JSON's writer goes) is past the chat's: said as the chat's.
    if (
      error instanceof ArgumentError &&
      error.problem?.kind === 'not-as-typed' &&
      error.problem.reason.kind === 'too-deep'
    )
      return fail(explain.problem(tool, { kind: 'too-deep', max: MAX_ARGUMENT_DEPTH }));
    if (error instanceof ArgumentError)
      return fail(
        error.problem
          ? explain.problem(tool, { kind: 'argument', problem: error.problem, message: error.message })
          : error.message,
      );
    return { message: String(error) };
  }
}

/** `args`, unless they nest deeper than `MAX_ARGUMENT_DEPTH`. */
function shallowEnough(args: Record<string, unknown>): Record<string, unknown> {
  if (nestsDeeper(args, MAX_ARGUMENT_DEPTH)) throw new CommandError({ kind: 'too-deep', max: MAX_ARGUMENT_DEPTH });
  return args;
}
