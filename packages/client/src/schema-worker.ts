/**
 * The thread `SchemaValidator` checks on (Node only; not an entry for anyone else): it compiles
 * each schema and checks each value it is sent, one at a time, answering on its port and then on
 * the shared signal the caller waits on (`schema/isolated.ts`). A check that runs past the
 * caller's bound never answers: the caller ends this thread.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import type { CheckReply, CheckRequest } from './schema/isolated.js';
import { SchemaChecks } from './schema/validator.js';

const { port, signal } = workerData as { port: MessagePort; signal: SharedArrayBuffer };
const said = new Int32Array(signal);
const checks = new SchemaChecks();
const compiled = new Map<number, (input: unknown) => string | undefined>();

function answer(request: CheckRequest): CheckReply {
  try {
    if (request.op === 'compile') {
      compiled.set(request.key, checks.compile(request.schema));
      return { seq: request.seq, ok: true };
    }
    const check = compiled.get(request.key);
    if (!check) return { seq: request.seq, ok: false, error: 'not compiled on this thread' };
    return { seq: request.seq, ok: true, failed: check(request.input) };
  } catch (error) {
    return error instanceof Error
      ? { seq: request.seq, ok: false, error: error.message, name: error.name }
      : { seq: request.seq, ok: false, error: String(error) };
  }
}

port.on('message', (request: CheckRequest | { op: 'drop'; key: number }) => {
  if (request.op === 'drop') {
    compiled.delete(request.key);
    return;
  }
  port.postMessage(answer(request));
  Atomics.store(said, 0, request.seq);
  Atomics.notify(said, 0);
});
// Ready: the caller's first request waits for this.
Atomics.store(said, 0, 1);
Atomics.notify(said, 0);
