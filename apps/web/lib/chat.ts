import {
  convertToModelMessages,
  dynamicTool,
  isToolUIPart,
  jsonSchema,
  stepCountIs,
  streamText,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
  type UIMessageStreamWriter,
} from 'ai';
import { commandArguments, splitCommand } from './command';
import { config } from './config';
import type { Locale } from './locale';
import { callTool, listTools } from './mcp';
import { languageModel } from './model';
import { classifyModelError, explainModelProblem, explainToolCallMistake } from './model-errors';
import { type Chat, endTurn } from './state';
import { uiMessageResponse } from './ui-stream';
import { wholeText, wholeValue } from './whole-text';
import type { UnavailableServer } from './wire';

const SYSTEM =
  'You operate opsdesk through its tools. When a tool needs something only the user can decide (an environment, a ticket, a confirmation), call the tool anyway: it asks the user directly. Never invent missing values and never ask for passwords.';

const NO_MODEL: Record<Locale, string> = {
  en: 'No language model is configured (set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server such as Ollama, and ELICITKIT_MODEL). Everything else works: use the tools panel, or type a command such as /deploy_service service=order-service.',
  zh: '未配置语言模型（请设置 OPENAI_API_KEY，或为本地兼容 OpenAI 的服务器（如 Ollama）设置 OPENAI_BASE_URL，并设置 ELICITKIT_MODEL）。其他功能都可用：使用工具面板，或输入命令，例如 /deploy_service service=order-service。',
};

/** A command naming no tool, and the tools there are, in the chat's language. */
const NO_TOOL: Record<Locale, (name: string, tools: string[]) => string> = {
  en: (name, tools) => `There is no tool "${name}". Tools: ${tools.join(', ')}.`,
  zh: (name, tools) => `没有名为“${name}”的工具。可用工具：${tools.join('、')}。`,
};

/** What the model is told of a tool call whose turn ended before its result came. */
const INTERRUPTED =
  'The call was interrupted before its result came (the turn was stopped, or its connection lost): whether it took effect is not known. Check before calling it again.';

/** A tool call the page shows without its result: its turn ended first. */
function unfinished(part: UIMessage['parts'][number]): boolean {
  return (
    isToolUIPart(part) &&
    part.state !== 'output-available' &&
    part.state !== 'output-error' &&
    part.state !== 'output-denied'
  );
}

/**
 * The page's history as the model may be given it. A tool call shown without its result belongs
 * to a turn that ended first (the person pressed Stop, or the connection dropped): sent as it is,
 * a call without a result is refused by the AI SDK before any endpoint is asked (and by
 * OpenAI-style endpoints), so every later turn of the chat failed. One whose input was still
 * arriving never ran and is left out; one that had started is told as interrupted.
 */
function settled(messages: UIMessage[]): UIMessage[] {
  if (!messages.some((m) => m.parts.some(unfinished))) return messages;
  return messages.map((message) =>
    message.parts.some(unfinished)
      ? {
          ...message,
          parts: message.parts.flatMap((part) => {
            if (!isToolUIPart(part) || !unfinished(part)) return [part];
            if (part.state === 'input-streaming') return [];
            return [{ ...part, state: 'output-error', errorText: INTERRUPTED } as typeof part];
          }),
        }
      : message,
  );
}

function writeText(writer: UIMessageStreamWriter, text: string): void {
  const id = `text-${crypto.randomUUID()}`;
  writer.write({ type: 'text-start', id });
  writer.write({ type: 'text-delta', id, delta: text });
  writer.write({ type: 'text-end', id });
}

/** `/tool k=v …` (values may be quoted) or `/tool {json}`: a direct call, no model involved. */
async function runCommand(
  chat: Chat,
  line: string,
  writer: UIMessageStreamWriter,
  signal: AbortSignal,
  locale: Locale,
): Promise<void> {
  const { tool: head, rest } = splitCommand(line);
  const { tools, unavailable } = await listTools(chat, locale);
  const tool = tools.find((t) => t.name === head);
  if (!tool) {
    // `server__tool` on a server that did not answer: say so, not "no such tool".
    const down = unavailable.find((u) => head.startsWith(`${u.server}__`));
    if (down) writeText(writer, down.message);
    else
      writeText(
        writer,
        `${NO_TOOL[locale](
          head,
          tools.map((t) => t.name),
        )}${notListed(unavailable)}`,
      );
    return;
  }
  const parsed = commandArguments(head, tool.inputSchema, rest, locale);
  if ('message' in parsed) {
    writeText(writer, parsed.message);
    return;
  }
  const args = parsed.args;
  const toolCallId = `call-${crypto.randomUUID()}`;
  writer.write({ type: 'tool-input-available', toolCallId, toolName: tool.name, input: args, dynamic: true });
  try {
    const output = await callTool(chat, tool.name, args, signal, locale);
    writer.write({ type: 'tool-output-available', toolCallId, output, dynamic: true });
  } catch (error) {
    writer.write({
      type: 'tool-output-error',
      toolCallId,
      errorText: error instanceof Error ? error.message : String(error),
      dynamic: true,
    });
  }
}

function notListed(unavailable: UnavailableServer[]): string {
  return unavailable.map((u) => ` ${u.message}`).join('');
}

/**
 * A model turn's tool call that failed (its server unreachable, a call that may have run, the chat
 * ended): told to the page with its own words. The turn's `onError` explains every other error as
 * the model endpoint's, and the call's causes (a refused connection) read as the model's own.
 */
class ToolCallError extends Error {}

/**
 * The model's arguments, if they can be a call's: MCP's `arguments` is an object (none given is
 * none: `{}`). The SDK's `jsonSchema` checks nothing by itself, so a list, a text or a number went
 * to the server as they were; refused, the SDK tells the model (and the page) the call was invalid.
 */
function argumentsObject(
  locale: Locale,
): (value: unknown) => { success: true; value: Record<string, unknown> } | { success: false; error: Error } {
  return (value) => {
    if (value === undefined || value === null) return { success: true, value: {} };
    if (typeof value !== 'object' || Array.isArray(value))
      return { success: false, error: new Error(NOT_AN_OBJECT[locale]) };
    // Half a character would reach the server as U+FFFD or be refused there: the model is told, and may send it whole.
    if (wholeValue(value).halves > 0) return { success: false, error: new Error(HALF_IN_ARGUMENTS[locale]) };
    return { success: true, value: value as Record<string, unknown> };
  };
}

const HALF_IN_ARGUMENTS: Record<Locale, string> = {
  en: 'the arguments hold half of a character (a lone UTF-16 surrogate such as \\ud800): no UTF-8 text can carry it; send whole characters.',
  zh: '参数含有半个字符（孤立的 UTF-16 代理项，如 \\ud800）：任何 UTF-8 文本都无法承载它；请发送完整的字符。',
};

const NOT_AN_OBJECT: Record<Locale, string> = {
  en: 'the arguments must be a JSON object (name: value pairs).',
  zh: '参数必须是 JSON 对象（名称与值的键值对）。',
};

/** The AI SDK tools of every server that answered; a server that did not is told to the person. */
async function aiTools(
  chat: Chat,
  writer: UIMessageStreamWriter,
  signal: AbortSignal,
  locale: Locale,
): Promise<ToolSet> {
  // Keyed by names a server chose and looked up by names the model chose (the SDK reads
  // `tools[name]`): no inherited key may stand for a tool, nor `__proto__` hide one.
  const tools: ToolSet = Object.create(null);
  const listing = await listTools(chat, locale);
  for (const u of listing.unavailable) writeText(writer, u.message);
  for (const t of listing.tools) {
    tools[t.name] = dynamicTool({
      description: t.description ?? t.title ?? t.name,
      inputSchema: jsonSchema<Record<string, unknown>>(t.inputSchema as Parameters<typeof jsonSchema>[0], {
        validate: argumentsObject(locale),
      }),
      execute: (input) =>
        // Checked by argumentsObject: an object.
        callTool(chat, t.name, input as Record<string, unknown>, signal, locale).catch((error: unknown) => {
          // The model is handed these words in its next step: a server's half character as U+FFFD.
          throw new ToolCallError(wholeText(error instanceof Error ? error.message : String(error)).text);
        }),
    });
  }
  return tools;
}

/**
 * A call the model got wrong (a tool nobody offered, arguments that are not JSON) ends with the
 * SDK's own words: its `tool-output-error` comes with the error's message as a string, where the
 * `tool-input-error` before it had the error itself (`explainToolCallMistake`). The output error
 * says what the input error said.
 */
function invalidCallsExplained(): TransformStream<UIMessageChunk, UIMessageChunk> {
  const explained = new Map<string, string>();
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.type === 'tool-input-error') explained.set(chunk.toolCallId, chunk.errorText);
      else if (chunk.type === 'tool-output-error' && explained.has(chunk.toolCallId)) {
        const errorText = explained.get(chunk.toolCallId) as string;
        explained.delete(chunk.toolCallId);
        controller.enqueue({ ...chunk, errorText });
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

function lastUserText(messages: UIMessage[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return (last?.parts ?? [])
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join('')
    .trim();
}

/**
 * The chat turn as an AI SDK UI message stream response: text, tool calls, and questions as data
 * parts (`ui-stream.ts`). What a turn holds while a question is open is what it still needs: a
 * command turn keeps its one line, not the history the page sent; a model turn hands the history
 * to the model once, converted.
 */
export function chatResponse(chat: Chat, messages: UIMessage[], signal: AbortSignal, locale: Locale = 'en'): Response {
  let history: UIMessage[] | undefined = messages;
  return uiMessageResponse({
    execute: async (writer) => {
      chat.writer = writer;
      const text = lastUserText(history ?? []);
      if (text.startsWith('/')) {
        history = undefined;
        return runCommand(chat, text, writer, signal, locale);
      }
      const model = config().model;
      if (!model) {
        history = undefined;
        return writeText(writer, NO_MODEL[locale]);
      }
      const converted = convertToModelMessages(settled(history ?? []));
      history = undefined;
      const result = streamText({
        model: languageModel(model),
        system: SYSTEM,
        messages: await converted,
        tools: await aiTools(chat, writer, signal, locale),
        stopWhen: stepCountIs(6),
        abortSignal: signal,
      });
      // The SDK's default error text is "An error occurred."; say what is wrong and which variable
      // fixes it — for the model's own errors: a tool call's failure says its own.
      writer.merge(
        result
          .toUIMessageStream({
            onError: (error) =>
              error instanceof ToolCallError
                ? error.message
                : (explainToolCallMistake(error, locale) ??
                  explainModelProblem(classifyModelError(error), model, locale)),
          })
          .pipeThrough(invalidCallsExplained()),
      );
      await result.consumeStream();
    },
    // Its end is sent once the turn's mark is gone: the page's next request finds the chat free.
    onFinish: () => endTurn(chat),
    onError: (error) => (error instanceof Error ? error.message : String(error)),
  });
}
