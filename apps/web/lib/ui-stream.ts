import { generateId as defaultGenerateId, UI_MESSAGE_STREAM_HEADERS, type UIMessageStreamWriter } from 'ai';

import { wholeValue } from './whole-text';

type Chunk = Parameters<UIMessageStreamWriter['write']>[0];

export interface UIMessageResponseOptions {
  /** Writes the turn's chunks; the stream ends once it and every stream it merged have ended. */
  execute(writer: UIMessageStreamWriter): Promise<void> | void;
  /** The text of the `error` chunk an error of `execute` or of a merged stream becomes. */
  onError(error: unknown): string;
  /**
   * Called once: when the stream has ended (its end is sent once a returned promise settles), or
   * when its reader cancelled it.
   */
  onFinish(): Promise<void> | void;
  /** The id given to a `start` chunk that carries none (tests). */
  generateId?: () => string;
}

const encoder = new TextEncoder();
const DONE = encoder.encode('data: [DONE]\n\n');

/**
 * A chat turn's response in the AI SDK's UI message stream protocol, as `createUIMessageStream`
 * piped into `createUIMessageStreamResponse` sends it — the same headers and bytes: each chunk
 * `data: <JSON>\n\n`, a `start` chunk without a message id given one, `[DONE]` at the end — but
 * written straight into one byte stream. The SDK's pair runs every chunk through five
 * TransformStreams (the id, the message state its `onFinish` needs, the finish hook, SSE, UTF-8),
 * each piped into the next, and that message state holds every part sent: for a turn waiting on
 * a question, all of it lived as long as the question was open (about 90 KB a turn).
 *
 * @example
 * return uiMessageResponse({ execute: (writer) => writer.write(chunk), onError: String, onFinish: () => {} });
 */
export function uiMessageResponse(options: UIMessageResponseOptions): Response {
  const generateId = options.generateId ?? defaultGenerateId;
  let messageId: string | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    await options.onFinish();
  };
  const enqueue = (bytes: Uint8Array) => {
    if (!open) return;
    try {
      controller.enqueue(bytes);
    } catch {
      open = false; // cancelled by its reader: what is still written goes nowhere
    }
  };
  const send = (chunk: Chunk) => {
    if (!open) return;
    let part = chunk;
    if (part.type === 'start' && part.messageId == null) {
      messageId ??= generateId();
      part = { ...part, messageId };
    }
    // Half a character (a lone surrogate) anywhere in a chunk — a server's text, the model's — is
    // sent as U+FFFD: JSON would carry it as `\ud800`, and the page would draw it and send it back
    // to the model in the next turn's history. Whoever must be told of it was told before (`callTool`).
    enqueue(encoder.encode(`data: ${JSON.stringify(wholeValue(part).value)}\n\n`));
  };
  const fail = (error: unknown) => {
    let errorText: string;
    try {
      errorText = options.onError(error);
    } catch (thrown) {
      // As the SDK's stream does: it errors, and ends.
      if (open) {
        open = false;
        controller.error(thrown);
      }
      void finish().catch(() => undefined);
      return;
    }
    send({ type: 'error', errorText });
  };
  const pending: Promise<void>[] = [];
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      open = false;
      void finish().catch(() => undefined);
    },
  });
  const writer: UIMessageStreamWriter = {
    write: send,
    merge(stream) {
      pending.push(
        (async () => {
          const reader = stream.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            send(value);
          }
        })().catch(fail),
      );
    },
    onError: options.onError,
  };
  try {
    const result = options.execute(writer);
    if (result) pending.push(result.catch(fail));
  } catch (error) {
    fail(error);
  }
  void (async () => {
    // A merge may start while another runs: wait until none is left.
    while (pending.length > 0) await pending.shift();
    await finish().catch(() => undefined);
    enqueue(DONE);
    if (open) {
      open = false;
      controller.close();
    }
  })();
  return new Response(body, { headers: UI_MESSAGE_STREAM_HEADERS });
}
