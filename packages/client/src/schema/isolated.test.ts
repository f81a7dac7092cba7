/**
 * What a server declares cannot stall the client checking it: on Node, `SchemaValidator` compiles
 * each schema and checks each value in a process of its own, waits for at most its bound, and ends
 * the process past it. A schema whose checks grow exponentially (24 levels of `anyOf` over `$ref`s,
 * a few hundred bytes: minutes, and an error list of gigabytes), `uniqueItems` over tens of
 * thousands of objects (every pair compared), a schema that takes seconds to compile: each is
 * reported — the value as not checked, the schema refused — and the next check runs in a new
 * process. Without it these tests run for minutes (vitest's own timeout fails them).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SOURCE_NODE_ARGS } from '../../../../test/support/children.js';
import { IsolatedChecks, IsolationUnavailable } from './isolated.js';
import { MAX_ERROR_TEXT, SchemaValidator } from './validator.js';

type Schema = Parameters<SchemaValidator['getValidator']>[0];

/** `levels` of `anyOf`, each trying the next level twice on the same value. */
function nested(levels: number): Schema {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    $defs[`l${i}`] = {
      anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { allOf: [{ $ref: `#/$defs/l${i + 1}` }, { minimum: 5 }] }],
    };
  $defs[`l${levels}`] = { type: 'string' };
  return { type: 'object', $defs, properties: { load: { $ref: '#/$defs/l0' } } } as Schema;
}

/**
 * `levels` of `anyOf`, each trying the next level twice — first where the value then fails a cheap
 * test, its errors dropped once the second try passes: the work doubles with each level, the
 * errors never grow past the depth. Time alone runs out, on any machine.
 */
function deep(levels: number): Schema {
  const $defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++)
    $defs[`d${i}`] = {
      anyOf: [{ allOf: [{ $ref: `#/$defs/d${i + 1}` }, { type: 'string' }] }, { $ref: `#/$defs/d${i + 1}` }],
    };
  $defs[`d${levels}`] = { type: 'number' };
  return { type: 'object', $defs, properties: { load: { $ref: '#/$defs/d0' } } } as Schema;
}

const fine = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as Schema;

/**
 * Runs `run` with `ELICITKIT_SCHEMA_WORKER` naming a worker file of `text` (an ES module) in a
 * folder of its own, removed afterwards, and the variable as it was.
 */
function withWorkerFile(text: string, run: () => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'ek-schema-worker-'));
  const file = join(dir, 'schema-worker.js');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(file, text);
  const before = process.env.ELICITKIT_SCHEMA_WORKER;
  process.env.ELICITKIT_SCHEMA_WORKER = file;
  try {
    run();
  } finally {
    if (before === undefined) delete process.env.ELICITKIT_SCHEMA_WORKER;
    else process.env.ELICITKIT_SCHEMA_WORKER = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('SchemaValidator: checks a server cannot stall', () => {
  it('a value whose check grows exponentially is reported as not checked, and checking goes on', () => {
    const validator = new SchemaValidator({ timeoutMs: 300 });
    const name = validator.getValidator(fine);
    const load = validator.getValidator(deep(32));
    const verdict = load({ load: 1 });
    expect(verdict.valid).toBe(false);
    expect(verdict.errorMessage).toMatch(/^not checked: checking it took longer than 0.3 s/);
    // The process was ended; the next checks (a schema compiled before, one compiled after) run on another.
    expect(name({ name: 'demo' })).toEqual({ valid: true, data: { name: 'demo' }, errorMessage: undefined });
    expect(name({}).valid).toBe(false);
    const after = validator.getValidator({ type: 'number' } as Schema);
    expect(after(1).valid).toBe(true);
    // A value that fails at the last level costs as much (every branch tried first).
    expect(load({ load: 'idle' }).errorMessage).toMatch(/^not checked: /);
  });

  it('uniqueItems over 30,000 objects is reported as not checked', () => {
    const validator = new SchemaValidator({ timeoutMs: 300 });
    const hosts = validator.getValidator({ type: 'array', uniqueItems: true } as Schema);
    const verdict = hosts(Array.from({ length: 30_000 }, (_, i) => ({ host: i, tags: [i, i] })));
    expect(verdict).toMatchObject({ valid: false, errorMessage: expect.stringMatching(/^not checked: /) });
    expect(hosts([{ a: 1 }, { a: 1 }]).valid).toBe(false);
    expect(hosts([{ a: 1 }, { a: 2 }]).valid).toBe(true);
  });

  it('a schema that takes longer than the bound to compile is refused, naming the bound', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 2_000; i++) properties[`p${i}`] = { type: 'string', pattern: `^a${i}$`, minLength: 1 };
    const validator = new SchemaValidator({ timeoutMs: 200 });
    expect(() => validator.getValidator({ type: 'object', properties } as Schema)).toThrow(
      'compiling the schema took longer than 0.2 s',
    );
    expect(validator.getValidator(fine)({ name: 'x' }).valid).toBe(true);
  });

  it('a check past its memory is reported as not checked, naming the bound, the caller untouched', () => {
    const validator = new SchemaValidator({ timeoutMs: 60_000, maxMemoryMb: 32 });
    const verdict = validator.getValidator(nested(26))({ load: 1 });
    expect(verdict).toEqual({
      valid: false,
      data: undefined,
      errorMessage: 'not checked: checking it needed more than 32 MB',
    });
    expect(validator.getValidator(fine)({ name: 'x' }).valid).toBe(true);
  });

  // Was: the checks ran on a thread whose heap was bounded (`resourceLimits`). Node ends such a
  // thread when its heap runs out in small steps, but one allocation past what it grants a thread
  // beyond its bound — Ajv concatenating error lists of millions, hundreds of MB at once — aborted
  // the whole process: `elicitkit call` died with the CLI's FATAL ERROR (exit 134) wherever the
  // memory ran out before the 2 s (Node 24 here; Node 20 on a faster machine). The checks now run
  // in a process of their own. A host of its own here, with time enough that memory runs out first.
  it('a check whose memory runs out in one allocation ends the checks process, never the host', () => {
    const script = `import { SchemaValidator } from ${JSON.stringify(fileURLToPath(new URL('./validator.ts', import.meta.url)))};
const validator = new SchemaValidator({ timeoutMs: 120_000 });
const schema = ${JSON.stringify(nested(26))};
const first = validator.getValidator(schema)({ load: 1 });
const after = validator.getValidator(${JSON.stringify(fine)})({ name: 'x' });
console.log(JSON.stringify({ first: first.errorMessage, after: after.valid }));`;
    const host = spawnSync(process.execPath, [...SOURCE_NODE_ARGS, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect({ status: host.status, signal: host.signal, stderr: host.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(JSON.parse(host.stdout)).toEqual({
      first: 'not checked: checking it needed more than 256 MB',
      after: true,
    });
  }, 160_000);

  // Was: the checks process shared the host's process group, so a terminal's Ctrl+C (sent to the
  // whole group) ended it under a host that handles Ctrl+C itself (`elicitkit call` cancels the
  // call and waits for the server's answer, then checks it).
  it.skipIf(process.platform === 'win32')(
    "Ctrl+C at a terminal (SIGINT to the host's process group) is the host's: its checks process goes on",
    async () => {
      const script = `import { IsolatedChecks } from ${JSON.stringify(fileURLToPath(new URL('./isolated.ts', import.meta.url)))};
const checks = IsolatedChecks.create({ timeoutMs: 10_000, maxMemoryMb: 64 });
const name = checks.compile(${JSON.stringify(fine)});
process.on('SIGINT', () => console.log('interrupted: ' + String(name({ name: 1 }))));
console.log('ready');
setTimeout(() => {}, 60_000);`;
      // The host leads a process group of its own, as a shell's foreground job does.
      const host = spawn(process.execPath, [...SOURCE_NODE_ARGS, '--input-type=module', '-e', script], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const children = () =>
        // Its checks process (tsx runs esbuild beside it too), not counting one ended and not yet reaped.
        execFileSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(host.pid)], { encoding: 'utf8' })
          .split('\n')
          .map((line) => line.trim().split(/\s+/))
          .filter(([pid, stat, ...args]) => pid && !stat?.startsWith('Z') && args.join(' ').includes('schema-worker'))
          .map(([pid]) => Number(pid));
      let out = '';
      const said = (text: string) =>
        new Promise<void>((resolve, reject) => {
          const seen = () => out.includes(text) && resolve();
          host.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            seen();
          });
          host.once('exit', (code) => reject(new Error(`the host exited (${code}): ${out}`)));
          seen();
        });
      try {
        await said('ready');
        const before = children();
        expect(before).toHaveLength(1);
        process.kill(-(host.pid as number), 'SIGINT');
        await said('interrupted: ');
        expect(out).toContain('interrupted: data/name must be string');
        expect(children()).toEqual(before);
      } finally {
        process.kill(-(host.pid as number), 'SIGKILL');
      }
    },
    60_000,
  );

  // Was: the checks process noticed its host gone only between requests, and no signal to the
  // host's group reaches it: a host killed while a costly check ran left it running that check to
  // its end at full CPU (for uniqueItems over a few MB, hours).
  it.skipIf(process.platform !== 'linux')(
    'a host killed while a check runs: its checks process ends too, the check not run to its end',
    async () => {
      const script = `import { SchemaValidator } from ${JSON.stringify(fileURLToPath(new URL('./validator.ts', import.meta.url)))};
const check = new SchemaValidator({ timeoutMs: 600_000 }).getValidator({ type: 'array', uniqueItems: true });
console.log('checking');
check(Array.from({ length: 60_000 }, (_, i) => ({ host: i, tags: [i, i] })));`;
      const host = spawn(process.execPath, [...SOURCE_NODE_ARGS, '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      await new Promise<void>((resolve, reject) => {
        host.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('checking')) resolve();
        });
        host.once('exit', (code) => reject(new Error(`the host exited (${code}) first`)));
      });
      /** The host's checks process, while it runs (not ended and unreaped). */
      const checksOf = (parent: number) =>
        execFileSync('ps', ['-eo', 'pid=,ppid=,stat=,args='], { encoding: 'utf8' })
          .split('\n')
          .map((line) => line.trim().split(/\s+/))
          .filter(
            ([, ppid, stat, ...args]) =>
              Number(ppid) === parent && !stat?.startsWith('Z') && args.join(' ').includes('schema-worker'),
          )
          .map(([pid]) => Number(pid));
      let checks: number[] = [];
      for (let i = 0; i < 100 && checks.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        checks = checksOf(host.pid as number);
      }
      expect(checks).toHaveLength(1);
      const [pid] = checks as [number];
      /** CPU time `pid` has used, in clock ticks (utime + stime of /proc/PID/stat). */
      const cpu = () => {
        const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
        return Number(fields[11]) + Number(fields[12]);
      };
      // At work on the 60,000 objects (every pair compared: minutes), past reading them: a second
      // of CPU (100 ticks) spent. Idle, it would end with its host's IPC channel anyway.
      const from = cpu();
      for (let i = 0; i < 600 && cpu() - from < 100; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(cpu() - from).toBeGreaterThanOrEqual(100);
      host.kill('SIGKILL');
      await once(host, 'exit');
      /** Whether `pid` still runs (an ended one nobody reaps, under a container's init, is a zombie). */
      const runs = () => {
        try {
          return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 100 && runs(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs()).toBe(false);
    },
    60_000,
  );

  // Was: one start of the checks process that failed to be ready in time (a machine under load, a
  // fork refused) turned isolation off for good: that check threw out of the validator, and from
  // then on every schema — and every new validator of these bounds — was checked on the host's
  // own thread, unbounded, a hostile schema able to stall or abort it again.
  it('a process that worked once and then does not start: what it cannot check is refused, never checked in-thread', () => {
    // Ready the first time only (a marker beside it); compiles anything; never finishes a check.
    const worker = `import { existsSync, writeFileSync } from 'node:fs';
const marker = new URL('./started', import.meta.url);
if (!existsSync(marker)) {
  writeFileSync(marker, '');
  process.on('message', (r) => { if (r.op === 'compile') process.send({ seq: r.seq, ok: true }); else if (r.op === 'check') for (;;) {} });
  process.on('disconnect', () => process.exit(0));
  process.send({ seq: 1, ok: true });
} else setInterval(() => {}, 1000);\n`;
    withWorkerFile(worker, () => {
      const validator = new SchemaValidator({ timeoutMs: 400, maxMemoryMb: 80 });
      const check = validator.getValidator(fine);
      expect(check({ name: 'x' }).errorMessage).toBe('not checked: checking it took longer than 0.4 s');
      expect(check({ name: 'x' }).errorMessage).toBe(
        "not checked: the schema checks' process did not start within 5 s",
      );
      // A schema compiled now, and a new validator of these bounds: refused, not checked here.
      expect(() => validator.getValidator({ type: 'number' } as Schema)).toThrow('did not start within 5 s');
      expect(() => new SchemaValidator({ timeoutMs: 400, maxMemoryMb: 80 }).getValidator(fine)).toThrow(
        'did not start within 5 s',
      );
    });
  }, 60_000);

  // Was: under Node's permission model without `--allow-worker`, every check threw
  // ERR_ACCESS_DENIED (no tool result could be checked); with it but without
  // `--allow-child-process`, the relay — a thread started without the host's flags — forked the
  // checks process all the same, outside the model.
  it.skipIf(process.platform !== 'linux').each([[[]], [['--allow-worker']]])(
    "Node's permission model allowing no child process (%j): checked in-thread, nothing forked",
    async (allowed) => {
      const flag = process.allowedNodeEnvironmentFlags.has('--permission')
        ? '--permission'
        : '--experimental-permission';
      // The package's build (a permission-bound Node cannot run tsx, which starts esbuild).
      const script = `import { SchemaValidator } from '@elicitkit/client/schema-validator';
console.log(JSON.stringify(new SchemaValidator().getValidator({ type: 'string' })(1)));
setTimeout(() => {}, 60_000);`;
      const host = spawn(
        process.execPath,
        [flag, '--allow-fs-read=*', ...allowed, '--no-warnings', '--input-type=module', '-e', script],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      try {
        let out = '';
        let err = '';
        host.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
        });
        await new Promise<void>((resolve, reject) => {
          host.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.includes('\n')) resolve();
          });
          host.once('exit', (code) => reject(new Error(`the host exited (${code}): ${err}`)));
        });
        expect(JSON.parse(out)).toEqual({ valid: false, errorMessage: 'data must be string' });
        // ps lists the host's children (and exits 1 when it has none).
        const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(host.pid)], { encoding: 'utf8' }).stdout;
        expect(children.trim()).toBe('');
      } finally {
        host.kill('SIGKILL');
      }
    },
    60_000,
  );

  // Was: a schema compiled within its bound was compiled again, cold, in the process started after
  // a hostile check's ended one — two to three times slower — and refused past the same bound,
  // its refusal ending that process too: one hostile check left another server's tool "not
  // checked" from then on. A schema that compiled before now gets three times the bound again.
  it('a schema that compiled before is compiled again after a restart, given its cold start', () => {
    // Compiles in 20 ms in its first process, 1.8 s (cold) in any later one — each side of the
    // 1 s bound and of three times it by 0.8 s or more, whatever the load; a check of 'hang' never
    // ends, any other passes.
    const worker = `import { existsSync, writeFileSync } from 'node:fs';
const marker = new URL('./started', import.meta.url);
const cold = existsSync(marker);
writeFileSync(marker, '');
const busy = (ms) => { const end = Date.now() + ms; while (Date.now() < end); };
process.on('message', (r) => {
  if (r.op === 'compile') { busy(cold ? 1_800 : 20); process.send({ seq: r.seq, ok: true }); }
  else if (r.op === 'check') { if (r.input === 'hang') for (;;) {} process.send({ seq: r.seq, ok: true }); }
});
process.on('disconnect', () => process.exit(0));
process.send({ seq: 1, ok: true });\n`;
    withWorkerFile(worker, () => {
      const checks = IsolatedChecks.create({ timeoutMs: 1_000, maxMemoryMb: 72 });
      const check = checks?.compile(fine);
      expect(check?.('hang')).toBe('not checked: checking it took longer than 1 s');
      // The next process compiles it again in 1.8 s: past the bound, within three times it.
      expect(check?.({ name: 'x' })).toBeUndefined();
      // A schema new to these checks still has the bound itself.
      expect(() => checks?.compile({ type: 'number' })).toThrow('compiling the schema took longer than 1 s');
    });
  });

  it('a checks process that ends answering: said how, and the next request goes to a new one', () => {
    // Ready, then gone at its first request.
    const worker = "process.on('message', () => process.exit(7)); process.send({ seq: 1, ok: true });\n";
    withWorkerFile(worker, () => {
      const checks = IsolatedChecks.create({ timeoutMs: 5_432, maxMemoryMb: 64 });
      for (let i = 0; i < 2; i++)
        expect(() => checks?.compile(fine)).toThrow("the checks' process ended compiling the schema (it exited (7))");
    });
  });

  it.skipIf(process.platform !== 'linux')(
    'a checks process stuck past the bound is ended and reaped, and one left idle ends with its host',
    async () => {
      // Compiles anything; checks nothing, ever.
      const worker = `process.on('message', (r) => { if (r.op === 'compile') process.send({ seq: r.seq, ok: true }); else if (r.op === 'check') for (;;) {} });
process.on('disconnect', () => process.exit(0));
process.send({ seq: 1, ok: true });\n`;
      const dir = mkdtempSync(join(tmpdir(), 'ek-schema-reaped-'));
      const file = join(dir, 'schema-worker.js');
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      writeFileSync(file, worker);
      /** The processes running `file`: [pid, state] (Z: a zombie, never reaped). */
      const running = () =>
        execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
          .split('\n')
          .filter((line) => line.includes(file))
          .map((line) => line.trim().split(/\s+/).slice(0, 2));
      const gone = async () => {
        for (let i = 0; i < 100 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
        return running();
      };
      const before = process.env.ELICITKIT_SCHEMA_WORKER;
      process.env.ELICITKIT_SCHEMA_WORKER = file;
      try {
        const checks = IsolatedChecks.create({ timeoutMs: 300, maxMemoryMb: 48 });
        const check = checks?.compile(fine);
        expect(running()).toHaveLength(1);
        expect(check?.({ name: 'x' })).toBe('not checked: checking it took longer than 0.3 s');
        expect(await gone()).toEqual([]);
        // A host that exits with its checks process idle: it goes too.
        const script = `import { IsolatedChecks } from ${JSON.stringify(fileURLToPath(new URL('./isolated.ts', import.meta.url)))};
IsolatedChecks.create({ timeoutMs: 1_000, maxMemoryMb: 48 }).compile({});`;
        const host = spawnSync(process.execPath, [...SOURCE_NODE_ARGS, '--input-type=module', '-e', script], {
          encoding: 'utf8',
          env: { ...process.env, ELICITKIT_SCHEMA_WORKER: file },
        });
        expect(host.status).toBe(0);
        expect(await gone()).toEqual([]);
      } finally {
        if (before === undefined) delete process.env.ELICITKIT_SCHEMA_WORKER;
        else process.env.ELICITKIT_SCHEMA_WORKER = before;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a value failing in ten thousand ways is told in a message of bounded length', () => {
    for (const isolated of [true, false]) {
      const check = new SchemaValidator({ isolated }).getValidator({
        type: 'array',
        items: { type: 'string' },
      } as Schema);
      const { valid, errorMessage } = check(Array.from({ length: 10_000 }, (_, i) => i));
      expect(valid).toBe(false);
      expect(errorMessage?.startsWith('data/0 must be string, data/1 must be string')).toBe(true);
      expect(errorMessage?.endsWith(' … (10000 errors in all)')).toBe(true);
      expect(errorMessage?.length).toBeLessThanOrEqual(MAX_ERROR_TEXT + 30);
    }
  });

  it('a value that cannot be sent to the checks (no JSON is such) is reported as not checked', () => {
    const check = new SchemaValidator().getValidator({} as Schema);
    expect(check(() => 1)).toMatchObject({
      valid: false,
      errorMessage: expect.stringMatching(/^not checked: .*could not be cloned/),
    });
  });

  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs must be a whole number of milliseconds above 0, not 0'],
    [{ timeoutMs: 1.5 }, 'timeoutMs must be a whole number of milliseconds above 0, not 1.5'],
    [{ maxMemoryMb: 8 }, 'maxMemoryMb must be a whole number of at least 16, not 8'],
    [{ maxMemoryMb: Number.NaN }, 'maxMemoryMb must be a whole number of at least 16, not NaN'],
  ])('bounds %j are refused when made', (options, message) => {
    expect(() => new SchemaValidator(options)).toThrow(new RangeError(message));
  });

  it("a host whose checks process never says it is ready: checked on the caller's thread from then on, not refused", () => {
    // A worker that loads and never says it is ready.
    withWorkerFile('setInterval(() => {}, 1000);\n', () => {
      // Bounds of its own: a process of its own, made with this worker file.
      const validator = new SchemaValidator({ timeoutMs: 1_234 });
      const check = validator.getValidator(fine);
      expect(check({ name: 'demo' }).valid).toBe(true);
      expect(check({}).valid).toBe(false);
      // A second validator of the same bounds does not wait for that process again.
      expect(new SchemaValidator({ timeoutMs: 1_234 }).getValidator(fine)({ name: 'x' }).valid).toBe(true);
    });
  });

  // Was: Next.js's build copies the worker file, met as `new URL('./schema-worker.js',
  // import.meta.url)`, alone into its output; it imported a chunk left behind, so the thread never
  // loaded — and said so only as an 'error' event the waiting caller cannot hear: every web app
  // process waited out the 5 s start, then checked in-thread. The worker is now one file, and a
  // process whose file does not load, or that throws or exits before it is ready, says why at once
  // on the signal the caller waits on — since the checks run in a process, one whose heap runs
  // out while loading too (a thread's could not: it runs no code to say so).
  it.each([
    ['runs out of memory as it loads', 'const all = []; for (;;) all.push({ n: all.length });\n', 'heap out of memory'],
    ['imports a module that is not there', "import './chunk-left-behind.js';\n", 'chunk-left-behind.js'],
    ['throws as it loads', "throw new Error('no Ajv here');\n", 'no Ajv here'],
    ['exits as it loads', 'process.exit(3);\n', 'it exited (3) while loading'],
    [
      'throws later, never ready',
      "setTimeout(() => { throw new Error('a timer went off'); }, 1);\n",
      'a timer went off',
    ],
  ])('a worker file that %s: the caller is told why, not left to wait out the start', (_label, text, cause) => {
    withWorkerFile(text, () => {
      const checks = IsolatedChecks.create({ timeoutMs: 4_321 + cause.length, maxMemoryMb: 64 });
      expect(() => checks?.compile(fine)).toThrow(IsolationUnavailable);
      expect(() => checks?.compile(fine)).toThrow(/could not load .*schema-worker\.js: /);
      let said = '';
      try {
        checks?.compile(fine);
      } catch (error) {
        said = String(error);
      }
      expect(said).toContain(cause);
    });
  });
});
