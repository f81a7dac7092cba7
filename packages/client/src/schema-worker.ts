/**
 * The process `SchemaValidator` checks in (Node only; not an entry for anyone else): started by
 * the checks' relay thread (`schema/isolated.ts`) with its heap bounded, it compiles each schema
 * and checks each value it is sent, one at a time, answering on its IPC channel. A check that runs
 * past the caller's bound is ended with this process; one that needs more memory than its bound
 * ends it too — a process, unlike a thread, takes nothing else with it.
 */
import { Worker } from 'node:worker_threads';
import type { CheckReply, CheckRequest } from './schema/isolated.js';
import { SchemaChecks } from './schema/validator.js';

const send = process.send?.bind(process);
if (!send) throw new Error('the schema checks process is started by SchemaValidator, with an IPC channel');

const checks = new SchemaChecks();
const compiled = new Map<number, (input: unknown) => string | undefined>();

function answer(request: CheckRequest): CheckReply {
  try {
    if (request.op === 'compile') {
      compiled.set(request.key, checks.compile(request.schema));
      return { seq: request.seq, ok: true };
    }
    const check = compiled.get(request.key);
    if (!check) return { seq: request.seq, ok: false, error: 'not compiled in this process' };
    return { seq: request.seq, ok: true, failed: check(request.input) };
  } catch (error) {
    return error instanceof Error
      ? { seq: request.seq, ok: false, error: error.message, name: error.name }
      : { seq: request.seq, ok: false, error: String(error) };
  }
}

process.on('message', (request: CheckRequest | { op: 'drop'; key: number }) => {
  if (request.op === 'drop') compiled.delete(request.key);
  // Its caller gone meanwhile, the answer has nowhere to go: the 'disconnect' below ends this.
  else send(answer(request), undefined, undefined, () => {});
});
// Its caller gone (the relay ended, the host exited): so is this process.
process.on('disconnect', () => process.exit(0));
// A host killed or crashed while a check runs here is not heard above (a check holds this thread
// to its end: for a hostile schema, hours) nor by a signal to its group (this process leads its
// own): a thread of its own watches the parent and ends this process once the parent is gone.
const parent = process.ppid;
new Worker(`setInterval(() => { if (process.ppid !== ${parent}) process.kill(process.pid, 'SIGKILL'); }, 250);`, {
  eval: true,
}).unref();
// Ready: the caller's first request waits for this.
send({ seq: 1, ok: true });
