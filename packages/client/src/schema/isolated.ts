/**
 * `SchemaValidator`'s checks on a thread of their own (Node), waited for with a bound. Compiling a
 * schema and checking a value are synchronous (the SDK asks for a verdict, not a promise), and
 * what a server declares can make either run for minutes or fill the heap; on another thread the
 * caller can stop waiting — `Atomics.wait` on a shared signal, for at most `timeoutMs` — and end
 * the thread, whatever it is stuck in. Nothing here is imported on a browser: Node's modules are
 * reached through `process.getBuiltinModule`, and without it there is no isolation.
 */
type WorkerThreads = typeof import('node:worker_threads');
type Worker = import('node:worker_threads').Worker;
type MessagePort = import('node:worker_threads').MessagePort;

/** What the caller sends the thread. */
export type CheckRequest =
  | { op: 'compile'; seq: number; key: number; schema: object }
  | { op: 'check'; seq: number; key: number; input: unknown };

/** What the thread answers: `failed` is the message of a value that did not pass. */
export type CheckReply =
  | { seq: number; ok: true; failed?: string | undefined }
  | { seq: number; ok: false; error: string; name?: string };

/** The built-in errors a compile throws (Ajv's, a RegExp's), thrown again by that name here. */
const ERRORS: Record<string, new (message: string) => Error> = { SyntaxError, TypeError, RangeError };

interface Thread {
  worker: Worker;
  port: MessagePort;
  said: Int32Array;
  /** Schemas compiled on this thread (a new thread compiles each again when it is first used). */
  compiled: Set<number>;
}

/** How long a new thread may take to load its modules and say it is ready, ms. */
const READY_MS = 5_000;

/** The signal's value once the thread could not load its file: it said why on its port. */
const FAILED = -1;

/**
 * What a thread runs first (as a script, with `require`): the worker file, loaded with `import()`,
 * and if that fails — a file copied alone by a bundler, without what it imports; an error thrown
 * or an exit while it loads — why, on the port, and `FAILED` on the signal. Without it a thread
 * that cannot load says so only as an 'error' event, which the caller, waiting on the signal,
 * never hears: it waited out READY_MS (as it still does for a thread whose heap runs out while it
 * loads, which runs no code to say so).
 */
const BOOT = `const { workerData } = require('node:worker_threads');
const said = new Int32Array(workerData.signal);
const failed = (error) => {
  if (Atomics.load(said, 0) !== 0) return;
  let why = 'it stopped';
  try { why = String(error && error.message || error); } catch {}
  try { workerData.port.postMessage({ seq: ${FAILED}, ok: false, error: why }); } catch {}
  Atomics.store(said, 0, ${FAILED});
  Atomics.notify(said, 0);
};
process.on('uncaughtException', (error) => {
  if (Atomics.load(said, 0) !== 0) throw error; // once ready, an error ends the thread as any would
  failed(error);
});
process.on('exit', (code) => failed('it exited (' + code + ') while loading'));
import(workerData.file).catch(failed);`;

/**
 * The checks' thread could not be started here (its file did not load, or it did not say it was
 * ready in time): the caller checks on its own thread from then on.
 */
export class ThreadUnavailable extends Error {}

/**
 * The worker file beside this module, as built: the package's bundle (`.mjs`: one ES module file,
 * which a bundler such as Next.js's copies alone into its output), the CLI's one-file build,
 * compiled by tsc, or — this module run from its TypeScript source — the package's compiled one
 * (a thread is not given tsx's loader). `ELICITKIT_SCHEMA_WORKER` names another (the tests' build).
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
  /** Every live schema, by key: a thread started after one was ended compiles them again when used. */
  private readonly schemas = new Map<number, object>();
  private readonly forget = new FinalizationRegistry<number>((key) => {
    this.schemas.delete(key);
    if (this.thread?.compiled.delete(key)) this.thread.port.postMessage({ op: 'drop', key });
  });

  private constructor(
    private readonly threads: WorkerThreads,
    private readonly file: URL,
    private readonly bounds: { timeoutMs: number; maxMemoryMb: number },
  ) {}

  /**
   * Checks on a thread of their own, or undefined where there are none to wait on (a browser).
   * One thread per process for each pair of bounds, whatever number of validators use it: each
   * thread loads Ajv again, and a thread is not ended when the validators using it are dropped.
   */
  static create(bounds: { timeoutMs: number; maxMemoryMb: number }): IsolatedChecks | undefined {
    const key = `${bounds.timeoutMs}/${bounds.maxMemoryMb}`;
    if (!SHARED.has(key)) SHARED.set(key, IsolatedChecks.made(bounds));
    const made = SHARED.get(key);
    return made?.unavailable ? undefined : made;
  }

  /** Its thread could not be started (`ThreadUnavailable`): checks run on the caller's thread. */
  unavailable = false;

  private static made(bounds: { timeoutMs: number; maxMemoryMb: number }): IsolatedChecks | undefined {
    const threads = builtin<WorkerThreads>('node:worker_threads');
    const fs = builtin<typeof import('node:fs')>('node:fs');
    const url = builtin<typeof import('node:url')>('node:url');
    if (!threads || !fs || !url || !import.meta.url.startsWith('file:')) return undefined;
    const given = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
      ?.ELICITKIT_SCHEMA_WORKER;
    const files = given ? [url.pathToFileURL(given)] : WORKER_FILES.map((name) => new URL(name, import.meta.url));
    for (const file of files) if (fs.existsSync(file)) return new IsolatedChecks(threads, file, bounds);
    throw new Error(`the schema checks' worker is missing beside ${import.meta.url}: the package is incomplete`);
  }

  /**
   * `schema` compiled on the thread: a check returning undefined for a value that passes, else
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
      const thread = this.running();
      const refused = this.compiledOn(thread, key);
      if (refused !== undefined) return `not checked: ${refused.error}`;
      const reply = this.ask(thread, { op: 'check', seq: this.next(), key, input });
      if (!reply) return `not checked: checking it took longer than ${this.limit()}`;
      return reply.ok ? reply.failed : `not checked: ${reply.error}`;
    };
    this.forget.register(check, key);
    return check;
  }

  /** Compiles schema `key` on `thread` unless it is already: undefined when it is, else why not. */
  private compiledOn(thread: Thread, key: number): { error: string; name?: string | undefined } | undefined {
    if (thread.compiled.has(key)) return undefined;
    const schema = this.schemas.get(key);
    if (!schema) return { error: 'the schema is gone' };
    const reply = this.ask(thread, { op: 'compile', seq: this.next(), key, schema });
    if (!reply) return { error: `the schema took longer than ${this.limit()} to compile` };
    if (!reply.ok) return reply;
    thread.compiled.add(key);
    return undefined;
  }

  private limit(): string {
    const { timeoutMs, maxMemoryMb } = this.bounds;
    return `${timeoutMs / 1000} s, or more than ${maxMemoryMb} MB`;
  }

  private next(): number {
    // Never 0 (a thread starting) or 1 (a thread ready), and within the signal's Int32.
    this.seq = this.seq >= 0x7ffffff0 ? 2 : this.seq + 1;
    return this.seq;
  }

  /** Sends `request` and waits for its answer for at most `timeoutMs`; undefined (and the thread ended) past it. */
  private ask(thread: Thread, request: CheckRequest): CheckReply | undefined {
    try {
      thread.port.postMessage(request);
    } catch (error) {
      // Not cloneable (a function, a symbol): no JSON value is that, so nothing a server sent.
      return { seq: request.seq, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (!this.waitFor(thread, request.seq, this.bounds.timeoutMs)) {
      this.end(thread);
      return undefined;
    }
    for (;;) {
      const received = this.threads.receiveMessageOnPort(thread.port);
      if (!received) return undefined;
      const reply = received.message as CheckReply;
      if (reply.seq === request.seq) return reply;
    }
  }

  /** Waits until the thread's signal says `value`, for at most `ms`; false when it did not in time. */
  private waitFor(thread: Thread, value: number, ms: number): boolean {
    const deadline = performance.now() + ms;
    for (;;) {
      const now = Atomics.load(thread.said, 0);
      if (now === value) return true;
      if (now === FAILED) return false;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(thread.said, 0, now, left);
    }
  }

  /** The thread checks run on, started when there is none (the first check, or the last one ended). */
  private running(): Thread {
    if (this.thread) return this.thread;
    const { port1, port2 } = new this.threads.MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const worker = new this.threads.Worker(BOOT, {
      eval: true,
      workerData: { port: port2, signal, file: this.file.href },
      transferList: [port2],
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.bounds.maxMemoryMb },
    });
    // Its heap exhausted, the thread ends with an error: told here, never thrown at the caller.
    worker.on('error', () => {});
    worker.unref();
    port1.unref();
    const thread: Thread = { worker, port: port1, said: new Int32Array(signal), compiled: new Set() };
    if (!this.waitFor(thread, 1, READY_MS)) {
      void worker.terminate();
      this.unavailable = true;
      const failed = this.threads.receiveMessageOnPort(port1)?.message as { error?: string } | undefined;
      throw new ThreadUnavailable(
        failed?.error === undefined
          ? `the schema checks' thread did not start within ${READY_MS / 1000} s`
          : `the schema checks' thread could not load ${this.file.href}: ${failed.error}`,
      );
    }
    this.thread = thread;
    return thread;
  }

  /** Ends a thread stuck in a check (or out of memory); the next check starts another. */
  private end(thread: Thread): void {
    if (this.thread === thread) this.thread = undefined;
    thread.port.close();
    void thread.worker.terminate();
  }
}
