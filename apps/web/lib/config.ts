import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** One MCP server the chat draws tools from. */
export type ServerConfig =
  | { name: string; kind: 'stdio'; command: string; args: string[]; era: 'legacy' | 'modern' }
  | { name: string; kind: 'http'; url: string; headers: Record<string, string>; era: 'legacy' | 'modern' };

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
export function readConfig(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const repoRoot = findRoot();
  const dataDir = resolve(
    /*turbopackIgnore: true*/ env.ELICITKIT_DATA ?? join(/*turbopackIgnore: true*/ repoRoot, '.elicitkit'),
  );
  const lang =
    env.ELICITKIT_LANG === 'zh' || (env.ELICITKIT_LANG === undefined && env.LANG?.startsWith('zh')) ? 'zh' : 'en';
  return {
    repoRoot,
    dataDir,
    lang,
    servers: env.ELICITKIT_SERVERS ? parseServers(env.ELICITKIT_SERVERS) : [opsdesk(repoRoot, dataDir, lang)],
    model: readModel(env),
    questionTimeoutMs: Number(env.ELICITKIT_QUESTION_TIMEOUT_MS ?? 10 * 60_000),
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

function readModel(env: NodeJS.ProcessEnv): ModelConfig | undefined {
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
  return list.map((entry: Record<string, unknown>, i) => {
    const name = typeof entry.name === 'string' && entry.name ? entry.name : `server${i + 1}`;
    const era = entry.era === 'legacy' ? 'legacy' : 'modern';
    if (typeof entry.url === 'string') {
      return { name, kind: 'http', url: entry.url, headers: (entry.headers as Record<string, string>) ?? {}, era };
    }
    if (Array.isArray(entry.command) && entry.command.every((c) => typeof c === 'string') && entry.command.length > 0) {
      const [command, ...args] = entry.command as string[];
      return { name, kind: 'stdio', command: command as string, args, era };
    }
    throw new Error(`ELICITKIT_SERVERS[${i}] needs "url" or "command" (an array)`);
  });
}

let cached: WebConfig | undefined;
export function config(): WebConfig {
  cached ??= readConfig();
  return cached;
}
