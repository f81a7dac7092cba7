/**
 * `SchemaValidator`'s checks in a process of their own (Node), waited for with a bound. Compiling a
 * schema and checking a value are synchronous (the SDK asks for a verdict, not a promise), and
 * what a server declares can make either run for minutes or fill the heap. The caller waits —
 * `Atomics.wait` on a signal shared with a small relay thread, for at most `timeoutMs` — while the
 * relay passes the request to a child process whose heap is bounded, and the answer back; past
 * the bound the caller ends the process and the relay. A process, not the relay thread itself:
 * one allocation larger than what V8 grants a thread past its heap bound (an Ajv error list
 * concatenated, hundreds of MB at once) aborts the whole process the thread lives in, where the
 * child's end takes nothing else with it. Nothing here is imported on a browser: Node's modules
 * are reached through `process.getBuiltinModule`, and without it there is no isolation.
 */
type WorkerThreads = typeof import('node:worker_threads');
type Worker = import('node:worker_threads').Worker;
type MessagePort = import('node:worker_threads').MessagePort;

/** What the caller sends the checks' process (through the relay). */
export type CheckRequest =
  | { op: 'compile'; seq: number; key: number; schema: object }
  | { op: 'check'; seq: number; key: number; input: unknown };

/**
 * What the process answers: `failed` is the message of a value that did not pass. `ended`: the
 * process ended during this request (its memory, most likely), the relay with it.
 */
export type CheckReply =
  | { seq: number; ok: true; failed?: string | undefined }
  | { seq: number; ok: false; error: string; name?: string; ended?: true };

/** Why a request got no answer: its time ran out, or the process ended answering it (why). */
type Unanswered = { time: true } | { ended: string };

/** The built-in errors a compile throws (Ajv's, a RegExp's), thrown again by that name here. */
const ERRORS: Record<string, new (message: string) => Error> = { SyntaxError, TypeError, RangeError };

interface Thread {
  /** The relay thread, which started the checks' process and passes requests and answers. */
  worker: Worker;
  port: MessagePort;
  /** [0]: the last request answered (1: ready; FAILED, ENDED); [1]: the checks' process id while it runs. */
  said: Int32Array;
  /** Schemas compiled in this process (a new one compiles each again when it is first used). */
  compiled: Set<number>;
}

/** How many times its bound a schema that compiled before may take to compile again, cold, ms. */
const RECOMPILE_FACTOR = 3;

/** How long a new process may take to start, load its modules and say it is ready, ms. */
const READY_MS = 5_000;

/** The signal's value once the process could not start or load: the relay said why on its port. */
const FAILED = -1;
/** The signal's value once the process has ended after it was ready: the next check starts another. */
const ENDED = -2;

/**
 * What the relay thread runs (a script, with `require`): it forks the worker file as a process
 * with its heap bounded (`--max-old-space-size`; `NODE_OPTIONS` left out: a host's `--inspect`
 * or loader is not the checks'), in a process group of its own, keeps the last of what it
 * writes on stderr, and passes requests and answers, storing each answer's number on the signal
 * the caller waits on. A process that cannot start, or fails or exits before it is ready, is
 * told on the port (why: the error line it printed) and as `FAILED`; one that ends later answers
 * the request in flight as `ended` and leaves `ENDED`. The caller closing the port ends the
 * process and the relay.
 */
const RELAY = `const { workerData } = require('node:worker_threads');
const { fork } = require('node:child_process');
const { fileURLToPath } = require('node:url');
const { port, signal, file, maxMemoryMb } = workerData;
const said = new Int32Array(signal);
const tell = (value) => { Atomics.store(said, 0, value); Atomics.notify(said, 0); };
let ready = false, pending = 0, over = false, stderr = '';
const env = { ...process.env };
delete env.NODE_OPTIONS;
const child = fork(fileURLToPath(file), [], {
  execArgv: ['--max-old-space-size=' + maxMemoryMb], env, serialization: 'advanced',
  stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  // A process group of its own (not on Windows, where that is a console of its own): a terminal's
  // Ctrl+C is the host's to handle, not a signal that ends its checks under it.
  detached: process.platform !== 'win32',
});
if (child.pid) Atomics.store(said, 1, child.pid);
child.stderr.setEncoding('utf8');
child.stderr.on('data', (text) => { stderr = (stderr + text).slice(-4000); });
const printed = () => stderr.split('\\n').map((line) => line.trim()).filter((line) => /^([A-Z][A-Za-z]*)?Error\\b|^FATAL ERROR/.test(line)).pop();
const end = (why) => {
  if (over) return;
  over = true;
  Atomics.store(said, 1, 0);
  if (!ready) {
    port.postMessage({ seq: ${FAILED}, ok: false, error: printed() || why });
    tell(${FAILED});
  } else {
    if (pending) port.postMessage({ seq: pending, ok: false, error: printed() || why, ended: true });
    tell(${ENDED});
  }
  port.close();
};
child.on('error', (error) => {
  end(error.message);
  if (!child.pid) process.exit(0);
});
// 'close': it has exited, been reaped (no zombie left) and its stderr read to the end; so ends the relay.
child.on('close', (code, sig) => {
  end(sig ? 'it was stopped (' + sig + ')' : 'it exited (' + code + ')' + (ready ? '' : ' while loading'));
  process.exit(0);
});
child.on('message', (reply) => {
  if (!ready) { ready = true; tell(1); return; }
  pending = 0;
  port.postMessage(reply);
  tell(reply.seq);
});
port.on('message', (request) => {
  if (over) return;
  if (request.op !== 'drop') pending = request.seq;
  try { child.send(request); } catch (error) { end(error.message); }
});
port.on('close', () => { child.kill('SIGKILL'); });`;

/**
 * The checks' process could not be started here (its file did not load, or it did not say it was
 * ready in time): the caller checks on its own thread from then on.
 */
export class IsolationUnavailable extends Error {}

/**
 * The worker file beside this module, as built: the package's bundle (`.mjs`: one ES module file,
 * which a bundler such as Next.js's copies alone into its output), the CLI's one-file build,
 * compiled by tsc, or — this module run from its TypeScript source — the package's compiled one
 * (the process is not given tsx's loader). `ELICITKIT_SCHEMA_WORKER` names another (the tests' build).
 */
const WORKER_FILES = [
  './schema-worker.mjs',
  './schema-worker.js',
  '../schema-worker.js',
  '../../dist/schema-worker.js',
];

/** The checks of this process, by their bounds (`IsolatedChecks.create`). */
const SHARED = new Map<string, IsolatedChecks | undefined>();

/** Node's `process.getBuiltinModule`, where this runs on Node (20.16 and later). */
function builtin<T>(id: string): T | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  return typeof get === 'function' ? (get(id) as T) : undefined;
}

export class IsolatedChecks {
  private thread: Thread | undefined;
  private seq = 1;
  private keys = 0;
  /** Every live schema, by key: a process started after one was ended compiles them again when used. */
  private readonly schemas = new Map<number, object>();
  /** Keys of schemas that compiled within the bound once (`compiledOn` gives their recompiling longer). */
  private readonly compiledBefore = new Set<number>();
  private readonly forget = new FinalizationRegistry<number>((key) => {
    this.schemas.delete(key);
    this.compiledBefore.delete(key);
    if (this.thread?.compiled.delete(key)) this.thread.port.postMessage({ op: 'drop', key });
  });

  private constructor(
    private readonly threads: WorkerThreads,
    private readonly file: URL,
    private readonly bounds: { timeoutMs: number; maxMemoryMb: number },
  ) {}

  /**
   * Checks in a process of their own, or undefined where there are none to wait on (a browser).
   * One such process (and relay) per host process for each pair of bounds, whatever number of
   * validators use it: each loads Ajv again, and it is not ended when the validators using it are
   * dropped (it ends with the host: its IPC channel closed, it exits).
   */
  static create(bounds: { timeoutMs: number; maxMemoryMb: number }): IsolatedChecks | undefined {
    const key = `${bounds.timeoutMs}/${bounds.maxMemoryMb}`;
    if (!SHARED.has(key)) SHARED.set(key, IsolatedChecks.made(bounds));
    const made = SHARED.get(key);
    return made?.unavailable ? undefined : made;
  }

  /** Its process could not be started (`IsolationUnavailable`): checks run on the caller's thread. */
  unavailable = false;
  /**
   * A process of these checks said it was ready once: isolation works here, and one that does not
   * start later (a machine under load, a fork refused) refuses what it cannot check — never the
   * caller's thread, unbounded, from then on.
   */
  private started = false;

  private static made(bounds: { timeoutMs: number; maxMemoryMb: number }): IsolatedChecks | undefined {
    const threads = builtin<WorkerThreads>('node:worker_threads');
    const fs = builtin<typeof import('node:fs')>('node:fs');
    const url = builtin<typeof import('node:url')>('node:url');
    if (!threads || !fs || !url || !import.meta.url.startsWith('file:')) return undefined;
    // Node's permission model, without threads or child processes allowed: none to isolate with
    // (a thread refused would throw at every check; one allowed, and not a child, must not fork
    // one — the relay, a thread, would run outside the model).
    const permission = (globalThis as { process?: { permission?: { has(scope: string): boolean } } }).process
      ?.permission;
    if (permission && !(permission.has('worker') && permission.has('child'))) return undefined;
    const given = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
      ?.ELICITKIT_SCHEMA_WORKER;
    const files = given ? [url.pathToFileURL(given)] : WORKER_FILES.map((name) => new URL(name, import.meta.url));
    for (const file of files) if (fs.existsSync(file)) return new IsolatedChecks(threads, file, bounds);
    throw new Error(`the schema checks' worker is missing beside ${import.meta.url}: the package is incomplete`);
  }

  /**
   * `schema` compiled in the checks' process: a check returning undefined for a value that passes, else
   * why it failed. Throws what the compile threw, or that it ran past the bound.
   */
  compile(schema: object): (input: unknown) => string | undefined {
    const key = ++this.keys;
    this.schemas.set(key, schema);
    const refused = this.compiledOn(this.running(), key);
    if (refused !== undefined) {
      this.schemas.delete(key);
      throw new (ERRORS[refused.name ?? ''] ?? Error)(refused.error);
    }
    const check = (input: unknown): string | undefined => {
      let thread: Thread;
      try {
        thread = this.running();
      } catch (error) {
        return `not checked: ${error instanceof Error ? error.message : String(error)}`;
      }
      const refused = this.compiledOn(thread, key);
      if (refused !== undefined) return `not checked: ${refused.error}`;
      const reply = this.ask(thread, { op: 'check', seq: this.next(), key, input });
      if ('unanswered' in reply) return `not checked: ${this.over(reply.unanswered, 'checking it')}`;
      return reply.ok ? reply.failed : `not checked: ${reply.error}`;
    };
    this.forget.register(check, key);
    return check;
  }

  /** Compiles schema `key` in `thread`'s process unless it is already: undefined when it is, else why not. */
  private compiledOn(thread: Thread, key: number): { error: string; name?: string | undefined } | undefined {
    if (thread.compiled.has(key)) return undefined;
    const schema = this.schemas.get(key);
    if (!schema) return { error: 'the schema is gone' };
    // Compiled within the bound before, in a process since ended (a hostile check's): compiled
    // again here cold, two to three times slower — given that much longer, or one hostile check
    // would leave a schema near its bound refused from then on, each refusal ending the process
    // again before it warms up.
    const again = this.compiledBefore.has(key);
    const ms = again ? this.bounds.timeoutMs * RECOMPILE_FACTOR : this.bounds.timeoutMs;
    const reply = this.ask(thread, { op: 'compile', seq: this.next(), key, schema }, ms);
    if ('unanswered' in reply) return { error: this.over(reply.unanswered, 'compiling the schema', ms) };
    if (!reply.ok) return reply;
    thread.compiled.add(key);
    this.compiledBefore.add(key);
    return undefined;
  }

  /** Why `doing` got no answer, said: past which bound, or how the process ended. */
  private over(why: Unanswered, doing: string, ms = this.bounds.timeoutMs): string {
    if ('time' in why) return `${doing} took longer than ${ms / 1000} s`;
    // Node's words for a heap past --max-old-space-size (`FATAL ERROR: … heap out of memory`).
    if (/heap out of memory|heap limit/i.test(why.ended))
      return `${doing} needed more than ${this.bounds.maxMemoryMb} MB`;
    return `the checks' process ended ${doing} (${why.ended})`;
  }

  private next(): number {
    // Never 0 (a process starting) or 1 (ready), never negative (FAILED, ENDED), within the signal's Int32.
    this.seq = this.seq >= 0x7ffffff0 ? 2 : this.seq + 1;
    return this.seq;
  }

  /**
   * Sends `request` and waits for its answer for at most `timeoutMs`. Unanswered — the process
   * and its relay ended — past it (`'time'`), or when the process ended answering it (why: its
   * memory ran out, most likely).
   */
  private ask(
    thread: Thread,
    request: CheckRequest,
    ms = this.bounds.timeoutMs,
  ): CheckReply | { unanswered: Unanswered } {
    try {
      thread.port.postMessage(request);
    } catch (error) {
      // Not cloneable (a function, a symbol): no JSON value is that, so nothing a server sent.
      return { seq: request.seq, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    this.waitFor(thread, request.seq, ms);
    const reply = this.replyTo(thread, request.seq);
    if (reply && !(!reply.ok && reply.ended)) return reply;
    // No answer and the process ended: it ended before it read this request.
    const ended =
      reply?.ok === false ? reply.error : Atomics.load(thread.said, 0) === ENDED ? 'it had ended' : undefined;
    this.end(thread);
    return { unanswered: ended === undefined ? { time: true } : { ended } };
  }

  /** The answer to request `seq` among those received on the port, if it is there. */
  private replyTo(thread: Thread, seq: number): CheckReply | undefined {
    for (;;) {
      const received = this.threads.receiveMessageOnPort(thread.port);
      if (!received) return undefined;
      const reply = received.message as CheckReply;
      if (reply.seq === seq) return reply;
    }
  }

  /**
   * Waits until the signal says `value` — or that the process failed or ended — for at most `ms`;
   * false when it did not say `value` in time.
   */
  private waitFor(thread: Thread, value: number, ms: number): boolean {
    const deadline = performance.now() + ms;
    for (;;) {
      const now = Atomics.load(thread.said, 0);
      if (now === value) return true;
      if (now === FAILED || now === ENDED) return false;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(thread.said, 0, now, left);
    }
  }

  /**
   * The process checks run in, started with its relay when there is none (the first check, or the
   * last one ended) or the one there has ended since.
   */
  private running(): Thread {
    if (this.thread && Atomics.load(this.thread.said, 0) !== ENDED) return this.thread;
    if (this.thread) this.end(this.thread);
    const { port1, port2 } = new this.threads.MessageChannel();
    const signal = new SharedArrayBuffer(8);
    const worker = new this.threads.Worker(RELAY, {
      eval: true,
      workerData: { port: port2, signal, file: this.file.href, maxMemoryMb: this.bounds.maxMemoryMb },
      transferList: [port2],
      execArgv: [],
    });
    // An error of the relay's own ends it: told here, never thrown at the caller (its next check
    // waits out the bound and starts another).
    worker.on('error', () => {});
    worker.unref();
    port1.unref();
    const thread: Thread = { worker, port: port1, said: new Int32Array(signal), compiled: new Set() };
    if (!this.waitFor(thread, 1, READY_MS)) {
      const failed = this.replyTo(thread, FAILED);
      this.end(thread);
      const why =
        failed === undefined || failed.ok
          ? `the schema checks' process did not start within ${READY_MS / 1000} s`
          : `the schema checks' process could not load ${this.file.href}: ${failed.error}`;
      if (this.started) throw new Error(why);
      this.unavailable = true;
      throw new IsolationUnavailable(why);
    }
    this.started = true;
    this.thread = thread;
    return thread;
  }

  /**
   * Ends a process stuck in a check (or out of memory, or gone) and its relay; the next check
   * starts another. The process is killed from here at once, not only by the relay, in case the
   * relay is slow to hear it.
   */
  private end(thread: Thread): void {
    if (this.thread === thread) this.thread = undefined;
    const pid = Atomics.exchange(thread.said, 1, 0);
    if (pid > 0) {
      try {
        (globalThis as { process?: { kill(pid: number, signal: string): void } }).process?.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    // The relay kills it too when its port closes, and ends once it has reaped it; a relay that
    // did not in time is ended (its process, if any, left for the host's exit to reap).
    thread.port.close();
    const { worker } = thread;
    setTimeout(() => void worker.terminate(), READY_MS).unref();
  }
}
