import { readFileSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';

/** One way to call a tool: its arguments, and what to set up on the server's data first. */
export interface FixtureCase {
  /** How reports name the case: the fixture's `label`, else its arguments as JSON. */
  label: string;
  arguments: Record<string, unknown>;
  prepare?: Preparation;
}

/**
 * Files to write in the data directory before each call of the case. Runs only on a throw-away
 * server doctor started itself (`doctor opsdesk`); elsewhere the case is skipped and says why.
 */
export interface Preparation {
  /** Path relative to the data directory → text. */
  write: { file: string; text: string }[];
}

/** Cases per tool name. Tools without an entry get arguments built from their input schema. */
export type Fixtures = ReadonlyMap<string, readonly FixtureCase[]>;

/** A fixtures file that cannot be used: the message names the file and the place in it. */
export class FixtureError extends Error {
  readonly code = 'BAD_FIXTURES';
  constructor(message: string) {
    super(message);
    this.name = 'FixtureError';
  }
}

const CASE_KEYS = new Set(['label', 'arguments', 'prepare']);
const TOP_KEYS = new Set(['version', 'description', 'tools']);

/**
 * Reads fixtures in either form. Short: `{"tool": {…arguments}}` or `{"tool": [{…}, {…}]}`.
 * Full (`"version": 2`): `{"version": 2, "tools": {"tool": [{"label", "arguments", "prepare"}]}}`.
 *
 * @example
 * parseFixtures({ deploy_service: [{ service: 'order-service' }, { service: 'order-service', env: 'prod' }] }, 'cli')
 */
export function parseFixtures(raw: unknown, source: string): Fixtures {
  const fail = (where: string, what: string): never => {
    throw new FixtureError(`${source}: ${where}${where ? ': ' : ''}${what}`);
  };
  if (!isRecord(raw)) return fail('', 'expected an object of tool name → arguments');
  const out = new Map<string, FixtureCase[]>();
  if (!Object.hasOwn(raw, 'version')) {
    for (const [tool, value] of Object.entries(raw)) {
      const list = Array.isArray(value) ? value : [value];
      if (list.length === 0) fail(tool, 'give at least one set of arguments');
      out.set(
        tool,
        list.map((args, i) => {
          const where = Array.isArray(value) ? `${tool}[${i}]` : tool;
          if (!isRecord(args)) return fail(where, 'the arguments must be an object');
          return { label: labelOf(args), arguments: args };
        }),
      );
    }
    return out;
  }
  if (raw.version !== 2) fail('version', `must be 2, not ${JSON.stringify(raw.version)}`);
  for (const key of Object.keys(raw)) if (!TOP_KEYS.has(key)) fail(key, 'unknown key (expected version, tools)');
  if (raw.description !== undefined && typeof raw.description !== 'string') fail('description', 'must be text');
  const tools = raw.tools;
  if (!isRecord(tools)) return fail('tools', 'expected an object of tool name → list of cases');
  for (const [tool, cases] of Object.entries(tools)) {
    if (!Array.isArray(cases) || cases.length === 0) fail(`tools.${tool}`, 'expected a non-empty list of cases');
    out.set(
      tool,
      (cases as unknown[]).map((c, i) => parseCase(c, `tools.${tool}[${i}]`, fail)),
    );
  }
  return out;
}

function parseCase(raw: unknown, where: string, fail: (where: string, what: string) => never): FixtureCase {
  if (!isRecord(raw)) return fail(where, 'a case must be an object: {"arguments": {…}}');
  for (const key of Object.keys(raw))
    if (!CASE_KEYS.has(key)) fail(`${where}.${key}`, 'unknown key (expected label, arguments, prepare)');
  const args = raw.arguments ?? {};
  if (!isRecord(args)) fail(`${where}.arguments`, 'must be an object');
  if (raw.label !== undefined && (typeof raw.label !== 'string' || raw.label.trim() === ''))
    fail(`${where}.label`, 'must be non-empty text');
  const out: FixtureCase = {
    label: typeof raw.label === 'string' ? raw.label : labelOf(args as Record<string, unknown>),
    arguments: args as Record<string, unknown>,
  };
  if (raw.prepare !== undefined) out.prepare = parsePreparation(raw.prepare, `${where}.prepare`, fail);
  return out;
}

function parsePreparation(raw: unknown, where: string, fail: (where: string, what: string) => never): Preparation {
  if (!isRecord(raw)) return fail(where, 'expected {"write": {"path": "text"}}');
  for (const key of Object.keys(raw)) if (key !== 'write') fail(`${where}.${key}`, 'unknown key (expected write)');
  if (!isRecord(raw.write) || Object.keys(raw.write).length === 0)
    fail(`${where}.write`, 'expected a non-empty object of path (inside the data directory) → text');
  const write: Preparation['write'] = [];
  for (const [file, text] of Object.entries(raw.write as Record<string, unknown>)) {
    const why = outsideDataDir(file);
    if (why) fail(`${where}.write["${file}"]`, why);
    if (typeof text !== 'string') fail(`${where}.write["${file}"]`, 'the content must be text');
    write.push({ file: posix.normalize(file), text: text as string });
  }
  return { write };
}

/** Why a preparation path could leave the data directory, or undefined when it stays inside. */
function outsideDataDir(file: string): string | undefined {
  if (file === '' || file.includes('\0')) return 'must be a non-empty path without NUL bytes';
  if (file.includes('\\')) return 'use forward slashes';
  if (isAbsolute(file) || /^[A-Za-z]:/.test(file)) return 'must be relative to the data directory';
  const normal = posix.normalize(file);
  if (normal === '..' || normal.startsWith('../') || normal === '.' || normal.endsWith('/'))
    return 'must name a file inside the data directory';
  return undefined;
}

/**
 * Reads a fixtures file from disk.
 *
 * @example
 * const fixtures = readFixtures('doctor-fixtures.json'); // throws FixtureError with the place of the mistake
 */
export function readFixtures(path: string): Fixtures {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new FixtureError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseFixtures(raw, path);
}

/** Arguments as compact JSON, cut to a length a table can show. */
function labelOf(args: Record<string, unknown>): string {
  const json = JSON.stringify(args);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
