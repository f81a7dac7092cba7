/**
 * doctor --clients and --restart-check, end to end through the command: the per-client report
 * for opsdesk and for a server that asks four questions in a row, and a server whose capabilities
 * and tools change on every start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeArgs } from '../../../../test/support/children.js';
import { brokenStdio, doctorJson } from '../../test/doctor-harness.js';
import { main } from '../main.js';
import type { ClientView } from './clients.js';

const QUIRKY = fileURLToPath(new URL('../../test/quirky-stdio.ts', import.meta.url));
const quirky = (...args: string[]) => [process.execPath, ...nodeArgs(QUIRKY, ...args)];

const view = (clients: ClientView[], id: string) => {
  const found = clients.find((c) => c.client === id);
  if (!found) throw new Error(`no view for ${id}`);
  return found;
};
const toolView = (v: ClientView, tool: string) => {
  const found = v.tools.find((t) => t.tool === tool);
  if (!found) throw new Error(`${v.client} has no view of ${tool}`);
  return found;
};

describe('doctor --clients', () => {
  it('on opsdesk: Trae sees the production confirmation as Yes/No, Cline is told what is missing, nobody is warned', async () => {
    const { code, report } = await doctorJson([
      'opsdesk',
      '--revision',
      '2025-11-25',
      '--clients',
      'trae,cline,vscode',
      '--tools',
      'deploy_service',
    ]);
    expect(code).toBe(0);
    expect(report.revisions.map((r) => r.profile)).toEqual([
      '2025-11-25 form+url',
      '2025-11-25 form',
      '2025-11-25 url',
      '2025-11-25 no elicitation',
      'client trae',
      'client cline',
      'client vscode',
    ]);
    expect(report.revisions.every((r) => r.served)).toBe(true);
    const trae = view(report.clients, 'trae');
    expect(trae.announced).toBe('Trae');
    const traeDeploys = trae.tools.filter((t) => t.tool === 'deploy_service');
    const seen = traeDeploys.flatMap((t) => t.sees).join('\n');
    expect(seen).toMatch(/shown as Yes\/No/);
    expect(seen).not.toMatch(/as a broken fallback/);
    expect(traeDeploys.flatMap((t) => t.warnings)).toEqual([]);
    const cline = view(report.clients, 'cline').tools.filter((t) => t.tool === 'deploy_service');
    expect(cline.flatMap((t) => t.sees).join('\n')).toMatch(
      /nothing is asked: the tool names what is missing|one line of text/,
    );
    expect(cline.flatMap((t) => t.warnings)).toEqual([]);
    const vscode = view(report.clients, 'vscode')
      .tools.flatMap((t) => t.sees)
      .join('\n');
    expect(vscode).toMatch(/a QuickPick/);
  }, 240_000);

  it('on a server asking four questions in a row: Cursor folds the 3rd and 4th, Cline gets text for one field at a time, Trae gets the boolean as Yes/No', async () => {
    const { report } = await doctorJson([
      '--revision',
      '2025-11-25',
      '--clients',
      'cursor,trae,cline,claude-code',
      '--allow-destructive',
      '--yes',
      '--',
      ...quirky('four'),
    ]);
    const cursor = toolView(view(report.clients, 'cursor'), 'onboard');
    expect(cursor.sees).toHaveLength(4);
    expect(cursor.warnings).toEqual([
      expect.stringMatching(/^question 3 would be folded into the ones before it \(Cursor folds from question 3/),
      expect.stringMatching(/^question 4 would be folded/),
    ]);
    // Not an Elicitkit client quirk the server knows to adapt: the kit still shaped Trae's boolean.
    const trae = toolView(view(report.clients, 'trae'), 'onboard');
    expect(trae.sees[2]).toMatch(/"Send me product updates" shown as Yes\/No/);
    expect(trae.warnings).toEqual([]);
    const cline = toolView(view(report.clients, 'cline'), 'onboard');
    expect(cline.sees[0]).toBe('question 1: one line of text ("Workspace name")');
    expect(cline.sees.slice(1).every((s) => s.includes('one line of text'))).toBe(true);
    const claude = toolView(view(report.clients, 'claude-code'), 'onboard');
    expect(claude.sees).toEqual([
      'question 1: "Workspace name" as one line of input',
      'question 2: "Plan" as a list chosen with the arrow keys',
      'question 3: "Send me product updates" as y/N',
      'question 4: "Seats" as one line of input',
    ]);
    expect(claude.warnings).toEqual([]);
  }, 240_000);

  it('on a server written without Elicitkit: Trae is warned that a boolean it is sent would show badly', async () => {
    const { report } = await doctorJson([
      '--revision',
      '2025-11-25',
      '--clients',
      'trae',
      '--allow-destructive',
      '--yes',
      '--',
      ...brokenStdio('EK17'),
    ]);
    const trae = view(report.clients, 'trae');
    const warnings = trae.tools.flatMap((t) => t.warnings);
    expect(warnings).toContain('"Notify the team" is a boolean, which Trae shows badly: ask it as a Yes/No choice');
  }, 240_000);

  it('the text report has a section per client', async () => {
    const out: string[] = [];
    const code = await main(
      [
        'doctor',
        '--revision',
        '2025-11-25',
        '--clients',
        'cursor',
        '--allow-destructive',
        '--yes',
        '--',
        ...quirky('four'),
      ],
      { out: (s) => out.push(s), err: () => {} },
    );
    // Four questions in one call is also past the budget (EK08, an error past 3).
    expect(code).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(/EK08 error/);
    expect(text).toContain('What each client would show:');
    expect(text).toMatch(/Cursor \(cursor, announced as "cursor-vscode"\)/);
    expect(text).toMatch(/! question 3 would be folded/);
  }, 240_000);

  it.each([
    ['netscape', /--clients takes known client ids .*claude-code, claude-desktop, cursor, vscode, trae, cline/],
    ['trae,', /--clients takes known client ids .*claude-code, claude-desktop, cursor, vscode, trae, cline/],
    // An empty value is refused as every flag's is (flag-values.test.ts).
    ['', /--clients needs a value, not an empty one/],
  ])('--clients %j is a usage error naming what it takes', async (flag, says) => {
    const err: string[] = [];
    const code = await main(['doctor', 'opsdesk', '--clients', flag], { out: () => {}, err: (s) => err.push(s) });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(says);
  });
});

describe('doctor --restart-check (troubleshooting row 13)', () => {
  it('reports a server whose capabilities and tools change on a fresh start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ek-restart-'));
    try {
      const { report } = await doctorJson([
        '--revision',
        '2025-11-25',
        '--restart-check',
        '--yes',
        '--',
        ...quirky('changing', join(dir, 'starts')),
      ]);
      expect(report.restart?.compared).toBe(true);
      const changes = report.restart?.changes ?? [];
      // The two starts are consecutive, so one of them is odd and the other even, whichever came first.
      expect(changes).toHaveLength(2);
      expect(changes.some((c) => /^capability "logging" (appeared|disappeared)/.test(c))).toBe(true);
      expect(changes.some((c) => /^tool "deploy" (appeared|disappeared)$/.test(c))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('finds nothing on a server that declares the same on every start, and is absent unless asked', async () => {
    const checked = await doctorJson(['--revision', '2025-11-25', '--restart-check', '--yes', '--', ...quirky('four')]);
    expect(checked.report.restart).toEqual({ compared: true, changes: [] });
    const plain = await doctorJson(['--revision', '2025-11-25', '--yes', '--', ...quirky('four')]);
    expect(plain.report.restart).toBeNull();
  }, 240_000);
});
