/**
 * Shared test helpers: a scripted person behind a real SDK client's elicitation handler, and a
 * tool call that returns what a test wants to assert on.
 */
import type { Client } from '@modelcontextprotocol/client';

export type Reply =
  | { action: 'accept'; content?: Record<string, unknown> }
  | { action: 'decline' }
  | { action: 'cancel' }
  /** Never answer (until the request is cancelled). */
  | 'hang';

export type Step = Reply | ((params: Record<string, unknown>) => Reply | Promise<Reply>);

/** Answers each elicitation with the next step; records every request received. */
export function attachScript(client: Client, script: Step[], seen: Record<string, unknown>[]): void {
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const params = request.params as unknown as Record<string, unknown>;
    seen.push(params);
    const step = script.shift();
    if (step === undefined) throw new Error(`unexpected elicitation: ${String(params.message)}`);
    const reply = typeof step === 'function' ? await step(params) : step;
    if (reply === 'hang') {
      return new Promise((_resolve, reject) => {
        ctx.mcpReq.signal.addEventListener('abort', () => reject(new Error('elicitation abandoned')));
      });
    }
    return reply as never;
  });
}

/** Calls a tool with a human-length timeout; returns its status, text and structured content. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  const text =
    (result.content as { type: string; text?: string }[] | undefined)?.map((b) => b.text ?? '').join('\n') ?? '';
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  return {
    result,
    text,
    status: structured?.status as string | undefined,
    structured,
    isError: result.isError === true,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and the function that resolves it: one side waits for an event the other signals. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
