import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServing, serveHttp } from '../../opsdesk/src/serve-http.js';
import { count, tempDataDir } from '../../opsdesk/test/harness.js';
import { runCli as run } from '../test/run-cli.js';

let data: ReturnType<typeof tempDataDir>;
let http: HttpServing;
let answers: Record<string, string>;

beforeAll(async () => {
  data = tempDataDir();
  http = await serveHttp({ dataDir: join(data.dir, 'http'), locale: 'en', port: 0 });
  const write = (name: string, value: unknown) => {
    const file = join(data.dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(value));
    return file;
  };
  answers = {
    prod: write('prod', [
      { action: 'accept', content: { env: 'prod' } },
      { action: 'accept', content: { confirmed: true, ticket: 'REL-1001' } },
    ]),
    cancel: write('cancel', [{ action: 'cancel' }]),
    decline: write('decline', [{ action: 'decline' }]),
    bad: write('bad', [{ action: 'approve' }, 'x']),
    wrong: write('wrong', [{ action: 'accept', content: { env: 'qa' } }]),
  };
  // Create the stdio data directory (and its seeded database) before anything counts rows in it.
  expect((await run(['tools', 'opsdesk', '--revision', '2025-11-25', '--data', join(data.dir, 'stdio')])).code).toBe(0);
});
afterAll(async () => {
  await http.close();
  data.remove();
});

const token = () => http.newTokens.find((t) => t.username === 'alice')?.token ?? '';
const targets = () => ({
  stdio: ['opsdesk', '--data', join(data.dir, 'stdio')],
  http: [http.url, '--header', `Authorization: Bearer ${token()}`],
});
const deployments = (transport: 'stdio' | 'http') => count(join(data.dir, transport), 'deployments');

describe.each([
  ['stdio', '2025-11-25'],
  ['stdio', '2026-07-28'],
  ['http', '2025-11-25'],
  ['http', '2026-07-28'],
] as const)('elicitkit call over %s (%s)', (transport, revision) => {
  it('deploys to prod with an approved ticket from an answers file (exit 0)', async () => {
    const [target, ...rest] = targets()[transport];
    const before = deployments(transport);
    const r = await run([
      'call',
      target as string,
      'deploy_service',
      'service=order-service',
      '--answers',
      answers.prod as string,
      '--revision',
      revision,
      ...rest,
    ]);
    expect(r.err).toContain(`(${revision})`);
    expect(r.out).toMatch(/^Deployed order-service v2\.3\.1 to prod \(deployment #\d+, ticket REL-1001\)\.$/);
    expect(r.code).toBe(0);
    expect(deployments(transport)).toBe(before + 1);
  });

  it('cancel exits 3 and nothing is deployed', async () => {
    const [target, ...rest] = targets()[transport];
    const before = deployments(transport);
    const r = await run([
      'call',
      target as string,
      'deploy_service',
      'service=order-service',
      '--answers',
      answers.cancel as string,
      '--revision',
      revision,
      ...rest,
    ]);
    expect(r.code).toBe(3);
    expect(r.out).toContain('The user cancelled deploy_service');
    expect(deployments(transport)).toBe(before);
  });
});

describe('elicitkit call, other outcomes', () => {
  it('decline exits 3; --json prints the result with its status', async () => {
    const r = await run([
      'call',
      http.url,
      'deploy_service',
      'service=user-service',
      '--answers',
      answers.decline as string,
      '--revision',
      '2026-07-28',
      '--json',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({
      server: { name: 'opsdesk' },
      revision: '2026-07-28',
      result: { structuredContent: { status: 'declined' } },
    });
  });

  it('a scripted answer that does not fit the form is never sent as accept', async () => {
    const r = await run([
      'call',
      http.url,
      'deploy_service',
      'service=user-service',
      '--answers',
      answers.wrong as string,
      '--revision',
      '2025-11-25',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(r.err).toContain('did not fit the form');
    expect(r.code).toBe(3);
  });

  it('without a terminal or an answers file no capability is declared: the server says what is missing (exit 1)', async () => {
    const r = await run([
      'call',
      http.url,
      'deploy_service',
      'service=user-service',
      '--revision',
      '2025-11-25',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      '- env (Environment, required): one of dev (Development), staging (Staging), prod (Production)',
    );
  });

  it('a rejected call exits 1', async () => {
    const r = await run([
      'call',
      http.url,
      'deploy_service',
      'service=billing',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('There is no service called "billing"');
  });

  it.each([
    [['call', 'opsdesk'], /missing <tool>/],
    [['call', 'opsdesk', 'deploy_service', '--answers', '/nonexistent.json'], /--answers \/nonexistent\.json/],
    [
      ['call', 'opsdesk', 'deploy_service', '--era', 'future'],
      /--era \(deprecated: use --revision\) must be legacy, modern or auto/,
    ],
    [
      ['call', 'opsdesk', 'deploy_service', '--era', 'constructor'],
      /--era \(deprecated: use --revision\) must be legacy, modern or auto/,
    ],
    [
      ['call', 'opsdesk', 'deploy_service', '--revision', '2024-11-05'],
      /--revision must be 2025-06-18, 2025-11-25, 2026-07-28, auto, not "2024-11-05"/,
    ],
    [['tools', 'opsdesk', '--revision', 'legacy'], /--revision must be/],
    [
      ['call', 'opsdesk', 'deploy_service', '--revision', 'auto', '--era', 'auto'],
      /give --revision or --era, not both/,
    ],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('reports every problem of a bad answers file', async () => {
    const r = await run([
      'call',
      'opsdesk',
      'deploy_service',
      '--answers',
      answers.bad as string,
      '--data',
      join(data.dir, 'stdio'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/entry 1: "action" must be one of/);
    expect(r.err).toMatch(/entry 2: expected an object/);
  });

  it('an unknown tool or argument is a usage error naming the choices', async () => {
    const tool = await run(['call', http.url, 'deploy', '--header', `Authorization: Bearer ${token()}`]);
    expect(tool.code).toBe(2);
    expect(tool.err).toContain('has no tool "deploy" (tools: deploy_service, list_deployments');
    const arg = await run([
      'call',
      http.url,
      'deploy_service',
      'svc=x',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(arg.code).toBe(2);
    expect(arg.err).toContain('unknown argument "svc" (arguments: service, env, version)');
  });

  it('a refused connection exits 1 and names the target', async () => {
    const r = await run(['call', http.url, 'list_deployments', '--header', 'Authorization: Bearer nope']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`could not connect to ${http.url}`);
  });
});

describe('--revision names the protocol revision the client speaks', () => {
  it.each(['2025-06-18', '2025-11-25', '2026-07-28'])('tools and call speak %s', async (revision) => {
    const auth = ['--header', `Authorization: Bearer ${token()}`];
    const listed = await run(['tools', http.url, '--revision', revision, ...auth]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`opsdesk 0.1.0 — 6 tools (${revision})`);
    const before = deployments('http');
    const called = await run([
      'call',
      http.url,
      'deploy_service',
      'service=order-service',
      '--answers',
      answers.prod as string,
      '--revision',
      revision,
      ...auth,
    ]);
    expect(called.err).toContain(`(${revision})`);
    expect(called.code).toBe(0);
    expect(deployments('http')).toBe(before + 1);
  });

  it('without --revision or --era the client takes the newest revision the server offers', async () => {
    const r = await run(['tools', http.url, '--json', '--header', `Authorization: Bearer ${token()}`]);
    expect(JSON.parse(r.out).revision).toBe('2026-07-28');
  });

  it('still takes the deprecated --era, as the revision it stands for, with a note saying the new name', async () => {
    const auth = ['--header', `Authorization: Bearer ${token()}`];
    const legacy = await run(['tools', http.url, '--json', '--era', 'legacy', ...auth]);
    expect(JSON.parse(legacy.out).revision).toBe('2025-11-25');
    expect(legacy.err).toContain('elicitkit: --era is deprecated; say --revision 2025-11-25');
    const modern = await run(['tools', http.url, '--json', '--era', 'modern', ...auth]);
    expect(JSON.parse(modern.out).revision).toBe('2026-07-28');
    const named = await run(['tools', http.url, '--json', '--revision', '2025-06-18', ...auth]);
    expect(JSON.parse(named.out).revision).toBe('2025-06-18');
    expect(named.err).not.toContain('deprecated');
  });
});

describe('elicitkit tools', () => {
  it('lists the tools with their arguments, and as JSON', async () => {
    const text = await run([
      'tools',
      http.url,
      '--revision',
      '2025-11-25',
      '--header',
      `Authorization: Bearer ${token()}`,
    ]);
    expect(text.code).toBe(0);
    expect(text.out).toContain('opsdesk 0.1.0 — 6 tools (2025-11-25)');
    expect(text.out).toContain('    env?: dev|staging|prod — Target environment; asked from the user when missing');
    const json = await run(['tools', http.url, '--json', '--header', `Authorization: Bearer ${token()}`]);
    expect(JSON.parse(json.out).tools.map((t: { name: string }) => t.name)).toEqual([
      'deploy_service',
      'list_deployments',
      'execute_sql',
      'sync_file',
      'weekly_report',
      'register_user',
    ]);
  });

  it('works on a stdio command given after --', async () => {
    const r = await run([
      'tools',
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      '--import',
      'tsx',
      '--conditions=@elicitkit/source',
      join(import.meta.dirname, 'cli.ts'),
      'serve',
      '--stdio',
      '--data',
      join(data.dir, 'cmd'),
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('deploy_service');
  });
});
