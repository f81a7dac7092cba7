import type { ChatMessage, ToolOutput } from '../lib/wire';

/** A call refused for its arguments, to fix in the tool's form: what it was given, and what to fix. */
export interface ArgumentFix {
  tool: string;
  args: Record<string, unknown>;
  /** Argument name → why it was refused. */
  marked: Record<string, string>;
  /** Changes with each fix asked for, so the same one asked twice opens the form again. */
  nonce: number;
}

type ToolPart = Extract<ChatMessage['parts'][number], { type: 'dynamic-tool' }>;

/**
 * The arguments an `invalid` result refused, by name, when the call was refused for them (its
 * structured result names no question: nothing was asked); undefined for an invalid answer.
 */
export function refusedArguments(output: ToolOutput | undefined): Record<string, string> | undefined {
  const structured = output?.structured;
  if (output?.status !== 'invalid' || !structured || 'question' in structured) return undefined;
  const issues = Array.isArray(structured.issues) ? (structured.issues as unknown[]) : [];
  const marked: Record<string, string> = {};
  for (const issue of issues) {
    const { field, message } = (issue ?? {}) as { field?: unknown; message?: unknown };
    if (typeof field === 'string' && field !== '' && !Object.hasOwn(marked, field))
      // defineProperty: an argument named __proto__ stays an argument.
      Object.defineProperty(marked, field, {
        value: typeof message === 'string' ? message : '',
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return marked;
}

/**
 * The tool calls a later call of the same tool has done since: their "fix and retry" has nothing
 * left to fix. By call id.
 */
export function doneSince(messages: readonly ChatMessage[]): Set<string> {
  const parts = messages.flatMap((m) => m.parts.filter((p): p is ToolPart => p.type === 'dynamic-tool'));
  const fixed = new Set<string>();
  const doneLater = new Set<string>();
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as ToolPart;
    const output = part.state === 'output-available' ? (part.output as ToolOutput | undefined) : undefined;
    if (doneLater.has(part.toolName)) fixed.add(part.toolCallId);
    if (output?.status === 'done') doneLater.add(part.toolName);
  }
  return fixed;
}
