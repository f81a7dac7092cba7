import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, nodeArgs } from '../../../opsdesk/test/harness.js';
import { brokenServer, host, toolName } from '../../test/broken-servers.js';
import { doctorJson } from '../../test/doctor-harness.js';
import { doctor } from '../commands/doctor.js';
import type { DoctorReport } from './report.js';
import { isDestructive } from './safety.js';

const hosted: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(hosted.map((h) => h.close()));
});

async function serve(bugs: string[], readOnly = false) {
  const server = await host(() => brokenServer(bugs, readOnly ? { readOnly } : {}));
  hosted.push(server);
  return server;
}

describe('destructive tools and confirmations are never accepted without --allow-destructive', () => {
  it('follows the MCP annotation defaults: no hints means destructive, readOnlyHint or destructiveHint: false means not', () => {
    expect(isDestructive({})).toBe(true);
    expect(isDestructive({ annotations: {} })).toBe(true);
    expect(isDestructive({ annotations: { readOnlyHint: true } })).toBe(false);
    expect(isDestructive({ annotations: { destructiveHint: false } })).toBe(false);
    expect(isDestructive({ annotations: { readOnlyHint: false, destructiveHint: true } })).toBe(true);
  });

  it('answers a destructive tool with decline and cancel only, and says what was not reached', async () => {
    const server = await serve(['good']);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    const tool = report.tools[0];
    expect(tool?.destructive).toBe(true);
    expect(
      tool?.calls.filter((c) => c.profile === '2025-11-25 form').map((c) => c.skipped ?? c.answers.join()),
    ).toEqual(['destructive', 'destructive', 'decline', 'cancel']);
    // Nothing is explored either: no option is chosen, and the coverage says which and why.
    expect(report.exploration.calls).toBe(0);
    expect(report.coverage.fullyReached).toBe(0);
    expect(report.coverage.untried.map((u) => [u.label, u.reason, u.profiles])).toEqual([
      ['env=dev', 'destructive', ['2025-11-25 form+url', '2025-11-25 form']],
      ['env=prod', 'destructive', ['2025-11-25 form+url', '2025-11-25 form']],
    ]);
    const allowed = await doctorJson([server.url, '--revision', '2025-11-25', '--allow-destructive']);
    expect(
      allowed.report.tools[0]?.calls.filter((c) => c.profile === '2025-11-25 form').map((c) => c.answers.join()),
    ).toEqual(['accept', 'accept', 'decline', 'cancel', 'accept (env=prod)']);
    expect(allowed.report.allowDestructive).toBe(true);
    expect(allowed.report.coverage.untried).toEqual([]);
  });

  it('declines a confirmation even in a read-only tool, a typed one included', async () => {
    const server = await serve(['EK10', 'EK16'], true);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    for (const bug of ['EK10', 'EK16']) {
      const calls = report.tools.find((t) => t.name === toolName(bug))?.calls ?? [];
      const accepting = calls.filter((c) => c.strategy.startsWith('accept') && c.profile === '2025-11-25 form');
      expect(accepting.map((c) => c.answers)).toEqual([['decline (confirmation)'], ['decline (confirmation)']]);
      // Exploring accepts no confirmation either: nothing anywhere was accepted.
      expect(calls.flatMap((c) => c.answers).filter((a) => a.startsWith('accept'))).toEqual([]);
    }
    expect(
      report.coverage.untried
        .filter((u) => u.tool === toolName('EK10'))
        .map((u) => [u.label, u.reason, u.profiles.length]),
    ).toEqual([
      ['confirmed=false', 'confirmation', 2],
      ['confirmed=true', 'confirmation', 2],
    ]);
  });

  it('says which tools were only declined, so questions behind an accept stay unexplored', async () => {
    const server = await serve(['two-step']);
    const { report } = await doctorJson([server.url, '--revision', '2025-11-25']);
    expect(report.tools[0]?.questions.map((q) => q.key)).toEqual(['form: env']);
    expect(report.coverage.acceptNotTried).toEqual([toolName('two-step')]);
    const allowed = await doctorJson([server.url, '--revision', '2025-11-25', '--allow-destructive']);
    expect(allowed.report.tools[0]?.questions.map((q) => q.key)).toEqual(['form: env', 'form: ticket']);
    expect(allowed.report.coverage.acceptNotTried).toEqual([]);
  });

  it('on its own throw-away opsdesk doctor accepts, so the question behind the first is reached', async () => {
    const { report } = await doctorJson(['opsdesk', '--tools', 'deploy_service', '--revision', '2025-11-25']);
    expect(report.allowDestructive).toBe(true);
    expect(report.tools[0]?.questions.map((q) => q.key)).toEqual(['form: env', 'form: confirmed, ticket']);
  });
});

describe('--tools and --skip', () => {
  it('calls only the tools asked for, and none skipped', async () => {
    const server = await serve(['good', 'EK05', 'EK12'], true);
    const only = await doctorJson([
      server.url,
      '--revision',
      '2025-11-25',
      '--tools',
      `${toolName('good')},${toolName('EK12')}`,
    ]);
    expect(only.report.tools.map((t) => [t.name, t.filtered, t.calls.length > 0])).toEqual([
      [toolName('good'), false, true],
      [toolName('EK05'), true, false],
      [toolName('EK12'), false, true],
    ]);
    expect(only.report.findings.map((f) => f.rule)).toEqual(['EK12']);
    const skip = await doctorJson([
      server.url,
      '--revision',
      '2025-11-25',
      '--skip',
      toolName('EK12'),
      '--skip',
      'nope',
    ]);
    expect(skip.report.findings.map((f) => f.rule)).toEqual(['EK05']);
    expect(skip.err).toMatch(/warning: no tool named nope \(the server lists: /);
    expect(skip.report.coverage.notCalled).toEqual([toolName('EK12')]);
  });
});

describe('the warning before calling a server doctor did not start', () => {
  it('goes to stderr for a URL or a command, and not for the throw-away opsdesk', async () => {
    const server = await serve(['good'], true);
    const live = await doctorJson([server.url, '--revision', '2025-11-25']);
    expect(live.err).toMatch(
      /warning: about to call the tools of http:\/\/127\.0\.0\.1:\d+\/mcp, which doctor did not start/,
    );
    expect(live.report.throwAway).toBe(false);
    const own = await doctorJson(['opsdesk', '--tools', 'list_deployments', '--revision', '2026-07-28']);
    expect(own.err).not.toMatch(/warning/);
  });

  it('at a terminal, asks to continue: no calls a server nothing; yes runs; --yes does not ask', async () => {
    const server = await serve(['good'], true);
    const run = async (answer: string | undefined, extra: string[] = []) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      const prompt = new PassThrough();
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
      const done = doctor([server.url, '--revision', '2025-11-25', '--json', ...extra], io, { stdin, prompt });
      if (answer !== undefined) stdin.write(`${answer}\n`);
      const code = await done;
      return {
        code,
        report: out.length ? (JSON.parse(out.join('\n')) as DoctorReport) : undefined,
        err: err.join('\n'),
        asked: String(prompt.read() ?? ''),
      };
    };
    const no = await run('n');
    expect([no.code, no.report, no.err]).toEqual([3, undefined, expect.stringMatching(/nothing was called/)]);
    expect(no.asked).toBe('Continue? [y/N] ');
    const yes = await run('y');
    // Four answers under each of two profiles that can be asked, one under each of the two that
    // cannot show a form (URL only, none); and the other option of the select (env=prod) explored
    // under the two.
    expect([yes.code, yes.report?.summary.made]).toEqual([0, 12]);
    const flag = await run(undefined, ['--yes']);
    expect([flag.code, flag.asked]).toEqual([0, '']);
  });
});

describe('the throw-away data directory', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('is removed when doctor stops on an error', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'doctor-tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const err: string[] = [];
      const { main } = await import('../main.js');
      const code = await main(['doctor', 'opsdesk', '--tools', 'no_such_tool'], {
        out: () => {},
        err: (s) => err.push(s),
      });
      expect(code).toBe(2);
      expect(err.join('\n')).toMatch(/throw-away data: .*doctor-tmp-/);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('is removed when doctor is interrupted with Ctrl+C (SIGINT)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'doctor-tmp-'));
    try {
      const child = spawn(process.execPath, nodeArgs(CLI, 'doctor', 'opsdesk', '--json'), {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: tmp },
      });
      children.push(child);
      let err = '';
      child.stderr.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: string) => {
          err += chunk;
          if (/removed when doctor exits/.test(err)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`doctor exited with ${code} first: ${err}`)));
      });
      const ours = () => readdirSync(tmp).filter((f) => f.startsWith('elicitkit-doctor-'));
      expect(ours()).toHaveLength(1);
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      expect(code).toBe(130);
      expect(ours()).toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
