/**
 * `npm run test:pack` (CI: .ci/run): does what a user does with the published packages. It packs
 * every public workspace, installs all the tarballs at once into a new project outside the
 * repository (third-party dependencies from the npm registry, so it needs the registry; the
 * better-sqlite3 addon is built there as a user's install builds it), and in that project:
 *   1. typechecks and compiles the README's server example (section "A tool that asks"), with the
 *      three things it leaves to the reader filled in as stubs;
 *   2. runs `elicitkit doctor -- node server.mjs` on it;
 *   3. runs `elicitkit doctor opsdesk`;
 *   4. runs one `execute_sql` on opsdesk over stdio, which goes through the shop's own process.
 * Builds nothing: run `npm run build` first. The project is removed at the end; KEEP=1 keeps it.
 *
 *   node --import tsx scripts/pack-install.ts
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Packed, packWorkspaces, publicWorkspaces, ROOT, requireBuild } from './public-packages.js';
import { type Ran, runCommand, seconds, tail } from './run-command.js';

const KEEP = process.env.KEEP === '1';
const MINUTE = 60_000;

/** Inserted after the README example's imports: what it leaves to the reader, as small as runs. */
const STUBS = `
// What the README leaves to you, as stubs (scripts/pack-install.ts): every ticket is approved,
// a deploy is a counter, the audit trail goes to audit.jsonl beside this file.
import { appendFileSync } from 'node:fs';

function isApproved(_service: string, ticket: string): boolean {
  return ticket.length > 0;
}
let deployments = 0;
async function deployNow(_service: string, _env: string): Promise<number> {
  deployments += 1;
  return deployments;
}
const auditLog = {
  write(event: unknown): void {
    appendFileSync(new URL('audit.jsonl', import.meta.url), \`\${JSON.stringify(event)}\\n\`);
  },
};
`;
/** doctor's arguments for the example (docs/cli.md, "Fixtures"): without env, and prod, so both its questions are asked. */
const EXAMPLE_FIXTURES = {
  deploy_service: [{ service: 'order-service' }, { service: 'order-service', env: 'prod' }],
};
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false, // the packages' declaration files are checked too
    types: ['node'],
  },
  files: ['server.mts'],
};

/** The part of doctor's JSON report (docs/cli.md, "The JSON report") this script judges. */
interface DoctorReport {
  server: { name: string; version: string } | null;
  throwAway: boolean;
  revisions: { profile: string; served: boolean; error: string | null }[];
  tools: { name: string }[];
  findings: { rule: string; severity: string; tool: string; message: string }[];
  coverage: { questions: number; fullyReached: number };
  summary: { calls: number; errors: number; warnings: number; ok: boolean };
}

class Failure extends Error {}

const started = performance.now();
const workspaces = publicWorkspaces();
requireBuild(workspaces);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'elicitkit-pack-')));
const dirs = {
  tarballs: join(root, 'tarballs'),
  project: join(root, 'project'),
  data: join(root, 'data'),
  tmp: join(root, 'tmp'),
};
for (const dir of Object.values(dirs)) mkdirSync(dir);
const env = projectEnv();
console.log(`pack-install: in ${root}${KEEP ? ' (KEEP=1: kept at the end)' : ''}`);

try {
  const packed = await step('pack', async () => {
    const all = await packWorkspaces(workspaces, dirs.tarballs);
    const sizes = all.map((p) => `${p.name} ${Math.round(p.size / 1024)} kB`).join(', ');
    return { value: all, detail: `${all.length} tarballs: ${sizes}` };
  });
  await step('npm init -y', async () => ({ detail: ok(await npm(['init', '-y']), 'npm init -y').command }));
  await step('npm install', () => install(packed));
  await step('README example: tsc', typecheckExample);
  await step('doctor -- node server.mjs', doctorExample);
  await step('doctor opsdesk', doctorOpsdesk);
  await step('call opsdesk execute_sql', callShop);
  console.log(`pack-install: passed in ${seconds(performance.now() - started)}`);
} catch (error) {
  process.exitCode = 1;
  const message =
    error instanceof Failure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`pack-install: FAILED after ${seconds(performance.now() - started)}\n${message}`);
} finally {
  if (KEEP) console.log(`pack-install: kept ${root} (the project in project/, the tarballs in tarballs/)`);
  else rmSync(root, { recursive: true, force: true });
}

/** Runs one step, printing `✓ title  detail (time)`, or `✗ title` before its failure goes up. */
async function step<T>(title: string, run: () => Promise<{ value?: T; detail: string }>): Promise<T> {
  const t0 = performance.now();
  try {
    const { value, detail } = await run();
    console.log(`✓ ${title} (${seconds(performance.now() - t0)}): ${detail}`);
    return value as T;
  } catch (error) {
    console.error(`✗ ${title} (${seconds(performance.now() - t0)})`);
    throw error;
  }
}

/**
 * The environment of everything run in the project: this process's, without what `npm run` adds
 * about the repository (`npm_config_local_prefix` would point npm back at it, `npm_package_*`
 * describe its package.json), and with opsdesk's data and temporary folders in the throw-away
 * root. Other `npm_config_*` (the registry, `nodedir` for the better-sqlite3 build) are kept.
 */
function projectEnv(): NodeJS.ProcessEnv {
  const fromRun = /^(npm_config_local_prefix|npm_package_\w+|npm_lifecycle_\w+|npm_command|npm_config_call|INIT_CWD)$/i;
  const kept = Object.entries(process.env).filter(([k]) => !fromRun.test(k));
  return {
    ...Object.fromEntries(kept),
    ELICITKIT_DATA: dirs.data,
    XDG_DATA_HOME: join(root, 'xdg'),
    TMPDIR: dirs.tmp,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

function npm(args: string[], timeoutMs = 2 * MINUTE): Promise<Ran> {
  return runCommand('npm', args, { cwd: dirs.project, env, timeoutMs });
}

/**
 * `npx --yes=false`: the project's own bin only, never a download of a same-named package from the
 * registry. (Not `--no`: npx's argument scan takes the word after `--no` as its value and goes on
 * reading the command's own flags, so `npx --no tsc -p .` becomes `--package .`.)
 */
function npx(args: string[], timeoutMs = 3 * MINUTE): Promise<Ran> {
  return runCommand('npx', ['--yes=false', ...args], { cwd: dirs.project, env, timeoutMs });
}

function ok(ran: Ran, what: string): Ran {
  if (ran.code === 0 && !ran.timedOut) return ran;
  const why = ran.timedOut ? 'timed out' : `exit ${ran.code}`;
  throw new Failure(`${what} failed (${why}): ${ran.command}\n${tail(ran)}`);
}

function check(condition: boolean, message: string, ran?: Ran): asserts condition {
  if (!condition) throw new Failure(ran ? `${message}\n${tail(ran)}` : message);
}

/**
 * Every tarball in one `npm install`, beside what the README's example imports itself and the
 * TypeScript it is checked with, at the versions the repository uses.
 */
async function install(packed: Packed[]): Promise<{ detail: string }> {
  const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const server = workspaces.find((w) => w.manifest.name === '@elicitkit/server')?.manifest.dependencies ?? {};
  const wanted = {
    '@modelcontextprotocol/server': server['@modelcontextprotocol/server'],
    zod: server.zod,
    typescript: rootManifest.devDependencies.typescript,
    '@types/node': rootManifest.devDependencies['@types/node'],
  };
  const fromRegistry = Object.entries(wanted).map(([name, range]) => {
    if (range === undefined) throw new Failure(`no version of ${name} to install (package.json files changed?)`);
    return `${name}@${range}`;
  });
  const ran = ok(await npm(['install', ...packed.map((p) => p.file), ...fromRegistry], 20 * MINUTE), 'npm install');
  for (const p of packed) {
    const dir = join(dirs.project, 'node_modules', p.name);
    check(
      existsSync(join(dir, 'package.json')) && !lstatSync(dir).isSymbolicLink(),
      `${p.name} is not installed from its tarball in ${dir}`,
    );
  }
  const added = /added \d+ packages?/.exec(ran.stdout)?.[0] ?? 'installed';
  return { detail: `${packed.length} tarballs + ${fromRegistry.join(', ')}: ${added}` };
}

/** The code block of the README's section "A tool that asks", stubs added after its imports. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('A tool that asks'));
  const code = section === undefined ? undefined : /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (code === undefined) throw new Failure('README.md: no ```ts block in the section "## A tool that asks"');
  const lines = code.split('\n');
  const lastImport = lines.findLastIndex((l) => l.startsWith('import '));
  return [...lines.slice(0, lastImport + 1), STUBS, ...lines.slice(lastImport + 1), ''].join('\n');
}

async function typecheckExample(): Promise<{ detail: string }> {
  writeFileSync(join(dirs.project, 'server.mts'), readmeExample());
  writeFileSync(join(dirs.project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  ok(await npx(['tsc', '-p', '.']), "tsc of the README's example (server.mts)");
  check(existsSync(join(dirs.project, 'server.mjs')), 'tsc wrote no server.mjs');
  return { detail: 'server.mts (README + stubs) typechecks under strict, declaration files included → server.mjs' };
}

/** Doctor's JSON report from its stdout, or a failure naming what came instead. */
function report(ran: Ran, what: string): DoctorReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(ran.stdout);
  } catch {
    throw new Failure(`${what}: stdout is not a JSON report (exit ${ran.code})\n${tail(ran)}`);
  }
  const r = parsed as DoctorReport;
  const shaped =
    typeof r === 'object' &&
    r !== null &&
    Array.isArray(r.revisions) &&
    Array.isArray(r.tools) &&
    Array.isArray(r.findings) &&
    typeof r.summary?.ok === 'boolean' &&
    typeof r.coverage?.questions === 'number';
  check(shaped, `${what}: the report lacks revisions, tools, findings, summary or coverage`, ran);
  const errors = r.findings
    .filter((f) => f.severity === 'error')
    .map((f) => `  ${f.rule} ${f.tool}: ${f.message}`)
    .join('\n');
  check(ran.code === 0 && r.summary.ok, `${what}: exit ${ran.code}, ${r.summary.errors} error(s)\n${errors}`, ran);
  const unserved = r.revisions.filter((v) => !v.served || v.error !== null).map((v) => `${v.profile}: ${v.error}`);
  check(unserved.length === 0, `${what}: profiles not served: ${unserved.join('; ')}`);
  check(
    r.coverage.fullyReached === r.coverage.questions,
    `${what}: ${r.coverage.fullyReached} of ${r.coverage.questions} questions reached`,
  );
  return r;
}

function summary(r: DoctorReport): string {
  const { calls, errors, warnings } = r.summary;
  const reached = `${r.coverage.fullyReached} of ${r.coverage.questions} questions reached under every profile`;
  return `${r.server?.name} ${r.server?.version}: ${r.revisions.length} profiles, ${r.tools.length} tool(s), ${calls} calls, ${errors} errors, ${warnings} warnings, ${reached}`;
}

async function doctorExample(): Promise<{ detail: string }> {
  writeFileSync(join(dirs.project, 'fixtures.json'), `${JSON.stringify(EXAMPLE_FIXTURES, null, 2)}\n`);
  // Our own stub server: its deploy may be accepted (--allow-destructive), and no prompt (--yes).
  const args = ['elicitkit', 'doctor', '--json', '--yes', '--allow-destructive', '--fixtures', 'fixtures.json'];
  const ran = await npx([...args, '--', 'node', 'server.mjs']);
  const r = report(ran, 'doctor of the README example');
  check(r.server?.name === 'my-server', `doctor reached ${r.server?.name}, not the example's my-server`);
  check(
    r.coverage.questions === 2,
    `doctor found ${r.coverage.questions} questions in deploy_service, not 2 (env, prod)`,
  );
  const auditFile = join(dirs.project, 'audit.jsonl');
  const audited = existsSync(auditFile) ? readFileSync(auditFile, 'utf8').split('\n').filter(Boolean).length : 0;
  check(audited > 0, 'the example wrote no audit events (createElicitkit({ audit }))');
  return { detail: `${summary(r)}; ${audited} audit events` };
}

async function doctorOpsdesk(): Promise<{ detail: string }> {
  const ran = await npx(['elicitkit', 'doctor', 'opsdesk', '--json']);
  const r = report(ran, 'doctor opsdesk');
  check(r.server?.name === 'opsdesk' && r.throwAway, 'doctor opsdesk: not opsdesk on throw-away data', ran);
  const left = readdirSync(dirs.tmp).filter((f) => f.startsWith('elicitkit-doctor-'));
  check(left.length === 0, `doctor opsdesk left its throw-away data behind: ${left.join(', ')}`);
  return { detail: summary(r) };
}

/** A read-only statement runs without a question, in the shop's own process (dist/shop/worker-main.js). */
async function callShop(): Promise<{ detail: string }> {
  const sql = 'SELECT COUNT(*) AS n FROM orders';
  const ran = ok(
    await npx(['elicitkit', 'call', 'opsdesk', 'execute_sql', `sql=${sql}`, '--json', '--data', dirs.data]),
    'elicitkit call opsdesk execute_sql',
  );
  const result = (
    JSON.parse(ran.stdout) as { result?: { structuredContent?: { status?: string; rows?: { n?: unknown }[] } } }
  ).result?.structuredContent;
  const n = result?.rows?.[0]?.n;
  check(result?.status === 'done' && typeof n === 'number', `execute_sql did not answer done with a count`, ran);
  check(existsSync(join(dirs.data, 'shop.db')), `no shop.db in ${dirs.data}`);
  return { detail: `${sql} → ${n} (opsdesk over stdio, the shop in its worker process)` };
}
