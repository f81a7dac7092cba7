import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One MCP server the chat draws tools from. */
export type ServerConfig =
  | { name: string; kind: 'stdio'; command: string; args: string[]; era: 'legacy' | 'modern' }
  | { name: string; kind: 'http'; url: string; headers: Record<string, string>; era: 'legacy' | 'modern' };

type Env = Record<string, string | undefined>;

export type ModelConfig =
  | { kind: 'openai-compatible'; baseURL: string; apiKey: string | undefined; model: string }
  /** The AI SDK's mock model, scripted to call deploy_service: for the browser tests only. */
  | { kind: 'mock' };

export interface WebConfig {
  repoRoot: string;
  dataDir: string;
  servers: ServerConfig[];
  model: ModelConfig | undefined;
  /** How long a question waits in the browser before it counts as cancelled. */
  questionTimeoutMs: number;
  lang: 'en' | 'zh';
}

/** The repository root: where `apps/cli/bin/elicitkit.js` is, found from the working directory up. */
function findRoot(): string {
  let dir = resolve(/*turbopackIgnore: true*/ process.cwd());
  for (;;) {
    if (existsSync(join(/*turbopackIgnore: true*/ dir, 'apps', 'cli', 'bin', 'elicitkit.js'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(/*turbopackIgnore: true*/ process.cwd());
    dir = parent;
  }
}

/**
 * Reads the configuration from the environment (README: "Web app"):
 * OPENAI_API_KEY / OPENAI_BASE_URL / ELICITKIT_MODEL for the model, ELICITKIT_SERVERS for the MCP
 * servers (default: opsdesk over stdio), ELICITKIT_DATA for opsdesk's data (default ./.elicitkit).
 */
export function readConfig(env: Env = process.env): WebConfig {
  const repoRoot = findRoot();
  const dataDir = resolve(
    /*turbopackIgnore: true*/ env.ELICITKIT_DATA ?? join(/*turbopackIgnore: true*/ repoRoot, '.elicitkit'),
  );
  if (env.ELICITKIT_LANG !== undefined && env.ELICITKIT_LANG !== 'en' && env.ELICITKIT_LANG !== 'zh') {
    throw new Error(`ELICITKIT_LANG must be "en" or "zh", not "${env.ELICITKIT_LANG}"`);
  }
  const lang = (env.ELICITKIT_LANG ?? (env.LANG?.startsWith('zh') ? 'zh' : 'en')) as 'en' | 'zh';
  return {
    repoRoot,
    dataDir,
    lang,
    servers: env.ELICITKIT_SERVERS ? parseServers(env.ELICITKIT_SERVERS) : [opsdesk(repoRoot, dataDir, lang)],
    model: readModel(env),
    questionTimeoutMs: readTimeout(env.ELICITKIT_QUESTION_TIMEOUT_MS),
  };
}

function opsdesk(root: string, dataDir: string, lang: string): ServerConfig {
  return {
    name: 'opsdesk',
    kind: 'stdio',
    command: process.execPath,
    args: [
      join(/*turbopackIgnore: true*/ root, 'apps', 'cli', 'bin', 'elicitkit.js'),
      'serve',
      '--stdio',
      '--data',
      dataDir,
      '--lang',
      lang,
    ],
    era: 'modern',
  };
}

function readModel(env: Env): ModelConfig | undefined {
  if (env.ELICITKIT_MODEL === 'mock') {
    // Never in a real deployment by accident: the browser tests opt in explicitly.
    return env.ELICITKIT_ALLOW_MOCK_MODEL === '1' ? { kind: 'mock' } : undefined;
  }
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return undefined;
  return {
    kind: 'openai-compatible',
    baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    apiKey: env.OPENAI_API_KEY,
    model: env.ELICITKIT_MODEL ?? 'gpt-4o-mini',
  };
}

function parseServers(raw: string): ServerConfig[] {
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (error) {
    throw new Error(`ELICITKIT_SERVERS is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(list) || list.length === 0) throw new Error('ELICITKIT_SERVERS must be a non-empty JSON array');
  const names = new Set<string>();
  return list.map((entry: unknown, i): ServerConfig => {
    const where = `ELICITKIT_SERVERS[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new Error(`${where} must be an object`);
    const e = entry as Record<string, unknown>;
    const name = e.name === undefined ? `server${i + 1}` : e.name;
    if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(name) || name.includes('__')) {
      throw new Error(`${where}.name must be 1–40 letters, digits, "-" or "_" (no "__")`);
    }
    if (names.has(name)) throw new Error(`${where}.name "${name}" is used twice`);
    names.add(name);
    if (e.era !== undefined && e.era !== 'legacy' && e.era !== 'modern') {
      throw new Error(`${where}.era must be "legacy" (2025-11-25) or "modern" (2026-07-28)`);
    }
    const era = e.era === 'legacy' ? 'legacy' : 'modern';
    if (typeof e.url === 'string') {
      try {
        if (!/^https?:$/.test(new URL(e.url).protocol)) throw new Error('not http(s)');
      } catch {
        throw new Error(`${where}.url must be an http(s) URL`);
      }
      const headers = e.headers ?? {};
      if (
        typeof headers !== 'object' ||
        headers === null ||
        Array.isArray(headers) ||
        !Object.values(headers).every((v) => typeof v === 'string')
      ) {
        throw new Error(`${where}.headers must be an object of strings`);
      }
      return { name, kind: 'http', url: e.url, headers: headers as Record<string, string>, era };
    }
    if (Array.isArray(e.command) && e.command.length > 0 && e.command.every((c) => typeof c === 'string' && c)) {
      const [command, ...args] = e.command as string[];
      return { name, kind: 'stdio', command: command as string, args, era };
    }
    throw new Error(`${where} needs "url" (a string) or "command" (a non-empty array of strings)`);
  });
}

function readTimeout(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 10 * 60_000;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1000 || ms > 24 * 3_600_000) {
    throw new Error(`ELICITKIT_QUESTION_TIMEOUT_MS must be whole milliseconds from 1000 to 86400000, not "${raw}"`);
  }
  return ms;
}

let cached: WebConfig | undefined;
export function config(): WebConfig {
  cached ??= readConfig();
  return cached;
}
