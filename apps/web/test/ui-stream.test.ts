/**
 * The chat turn's response (`lib/ui-stream.ts`) sends what the AI SDK's `createUIMessageStream`
 * piped into `createUIMessageStreamResponse` sends — the same headers and the same bytes for the
 * same writes (text, tool parts, a question's part written again with its new status, a merged
 * model stream whose `start` chunk gets the message id, errors) — and calls its finish hook once:
 * when the turn ends, or when the page goes away mid-turn.
 */
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessageStreamWriter } from 'ai';
import { describe, expect, it } from 'vitest';
import { uiMessageResponse } from '../lib/ui-stream';

type Script = (writer: UIMessageStreamWriter) => Promise<void> | void;

const onError = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the AI SDK's own pair answers for `script`: status, headers and body text. */
async function viaSdk(script: Script) {
  let finished = 0;
  const response = createUIMessageStreamResponse({
    stream: createUIMessageStream({
      execute: ({ writer }) => script(writer),
      onFinish: () => void finished++,
      onError,
      generateId: () => 'msg-1',
    }),
  });
  return { ...(await read(response)), finished };
}

async function viaOurs(script: Script) {
  let finished = 0;
  const response = uiMessageResponse({
    execute: script,
    onFinish: () => void finished++,
    onError,
    generateId: () => 'msg-1',
  });
  return { ...(await read(response)), finished };
}

async function read(response: Response) {
  return { status: response.status, headers: [...response.headers.entries()], body: await response.text() };
}

const later = () => new Promise((resolve) => setTimeout(resolve, 1));

function modelStream(): ReadableStream<Parameters<UIMessageStreamWriter['write']>[0]> {
  return new ReadableStream({
    async start(controller) {
      controller.enqueue({ type: 'start' });
      controller.enqueue({ type: 'start-step' });
      await later();
      controller.enqueue({ type: 'text-start', id: 't1' });
      controller.enqueue({ type: 'text-delta', id: 't1', delta: 'Deploying…' });
      controller.enqueue({ type: 'text-end', id: 't1' });
      controller.enqueue({ type: 'finish-step' });
      controller.enqueue({ type: 'finish', finishReason: 'stop' });
      controller.close();
    },
  });
}

const scripts: Record<string, Script> = {
  'a command turn: text, a tool call, a question written twice, its result': async (writer) => {
    writer.write({ type: 'text-start', id: 'a' });
    writer.write({ type: 'text-delta', id: 'a', delta: 'Ünïcødé 部署 "quoted"\n' });
    writer.write({ type: 'text-end', id: 'a' });
    writer.write({
      type: 'tool-input-available',
      toolCallId: 'c1',
      toolName: 'deploy',
      input: { x: 1 },
      dynamic: true,
    });
    const question = { id: 'q1', status: 'open', prompt: { mode: 'form', message: 'Which?' } };
    writer.write({ type: 'data-elicitation', id: 'q1', data: question });
    await later();
    writer.write({ type: 'data-elicitation', id: 'q1', data: { ...question, status: 'answered', action: 'accept' } });
    writer.write({ type: 'tool-output-available', toolCallId: 'c1', output: { text: 'done' }, dynamic: true });
  },
  'a model turn: a merged stream, its start chunk given the message id': async (writer) => {
    writer.merge(modelStream());
    await later();
  },
  'an execute that throws at once': () => {
    throw new Error('the configuration is invalid');
  },
  'an execute that fails after writing': async (writer) => {
    writer.write({ type: 'text-start', id: 'a' });
    await later();
    throw new Error('no server answers');
  },
  'a merged stream that fails': (writer) => {
    writer.merge(
      new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'start' });
          controller.error(new Error('the model endpoint reset'));
        },
      }),
    );
  },
  'a turn that writes nothing': () => {},
};

describe('the chat turn response', () => {
  for (const [name, script] of Object.entries(scripts)) {
    it(`sends what the AI SDK sends: ${name}`, async () => {
      const ours = await viaOurs(script);
      expect(ours).toEqual(await viaSdk(script));
      expect(ours.finished).toBe(1);
    });
  }

  it('finishes once when its reader cancels mid-turn, and what is written later goes nowhere', async () => {
    let finished = 0;
    let writer!: UIMessageStreamWriter;
    let release!: () => void;
    const running = new Promise<void>((resolve) => {
      release = resolve;
    });
    const response = uiMessageResponse({
      execute: async (w) => {
        writer = w;
        w.write({ type: 'text-start', id: 'a' });
        await running;
        w.write({ type: 'text-delta', id: 'a', delta: 'too late' });
      },
      onFinish: () => void finished++,
      onError,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('data: {"type":"text-start","id":"a"}\n\n');
    await reader.cancel();
    expect(finished).toBe(1);
    release();
    await later();
    expect(() => writer.write({ type: 'text-end', id: 'a' })).not.toThrow();
    expect(finished).toBe(1);
  });

  it('sends its end once the finish hook’s promise settles (the turn’s mark is gone by then)', async () => {
    const seen: string[] = [];
    const response = uiMessageResponse({
      execute: (w) => w.write({ type: 'text-start', id: 'a' }),
      // Settles a macrotask later: an end sent without waiting for it would be read first.
      onFinish: () => later().then(() => void seen.push('finished')),
      onError,
    });
    const body = await response.text();
    seen.push('ended');
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(seen).toEqual(['finished', 'ended']);
  });
});
