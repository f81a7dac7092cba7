import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseRevisionChoice, type RevisionChoice, RevisionChoiceError } from '@elicitkit/client';
import { type Locale, REFUSED } from './locale';

/** One MCP server the chat draws tools from, and the protocol revision the chat speaks with it. */
export type ServerConfig =
  /** The bundled opsdesk, served once by this web app (`lib/opsdesk.ts`). */
  | { name: string; kind: 'opsdesk'; revision: RevisionChoice }
  | { name: string; kind: 'stdio'; command: string; args: string[]; revision: RevisionChoice }
  | { name: string; kind: 'http'; url: string; headers: Record<string, string>; revision: RevisionChoice };

type Env = Record<string, string | undefined>;

/** An OpenAI-compatible chat-completions endpoint and the model to use there. */
export interface ModelConfig {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
}

export interface WebConfig {
  repoRoot: string;
  dataDir: string;
  servers: ServerConfig[];
  model: ModelConfig | undefined;
  /** How long a question waits in the browser before it counts as cancelled. */
  questionTimeoutMs: number;
  /** How long connecting to an MCP server (its first answer) may take before it counts as not answering. */
  connectTimeoutMs: number;
  lang: 'en' | 'zh';
  /** A chat nobody has used for this long (and with no turn running) is closed. */
  chatIdleMs: number;
  /** Open chats per client address, and in all: past either, a new chat is refused with 429. */
  maxChatsPerAddress: number;
  maxChats: number;
  /** With a Redis URL, chats, CSRF tokens and questions are kept there, shared by every replica. */
  redisUrl: string | undefined;
  /**
   * With Redis, how long a chat's turn mark lasts unless renewed (every third of it while the
   * turn runs): how long a chat stays busy after the instance streaming its turn died.
   */
  turnLeaseMs: number;
  /** `ELICITKIT_SECRETS`: a form asking for a password, token or key (EK09) is shown with a warning, or declined unseen. */
  secrets: 'warn' | 'decline';
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
 * Reads the configuration from the environment (`docs/web.md`, "Configuration"):
 * OPENAI_API_KEY / OPENAI_BASE_URL / ELICITKIT_MODEL for the model, ELICITKIT_SERVERS for the MCP
 * servers (default: the bundled opsdesk, in process), ELICITKIT_DATA for opsdesk's data (default ./.elicitkit).
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
    servers: env.ELICITKIT_SERVERS
      ? parseServers(env.ELICITKIT_SERVERS)
      : [{ name: 'opsdesk', kind: 'opsdesk', revision: '2026-07-28' }],
    model: readModel(env),
    questionTimeoutMs: readTimeout(env.ELICITKIT_QUESTION_TIMEOUT_MS),
    connectTimeoutMs: whole('ELICITKIT_CONNECT_TIMEOUT_MS', env.ELICITKIT_CONNECT_TIMEOUT_MS, 30_000, 1000, 600_000),
    chatIdleMs: whole('ELICITKIT_CHAT_IDLE_MS', env.ELICITKIT_CHAT_IDLE_MS, 30 * 60_000, 1000, 7 * 24 * 3_600_000),
    maxChatsPerAddress: whole('ELICITKIT_MAX_CHATS_PER_ADDRESS', env.ELICITKIT_MAX_CHATS_PER_ADDRESS, 20, 1, 1e6),
    maxChats: whole('ELICITKIT_MAX_CHATS', env.ELICITKIT_MAX_CHATS, 2000, 1, 1e7),
    redisUrl: readRedisUrl(env.REDIS_URL),
    turnLeaseMs: whole('ELICITKIT_TURN_LEASE_MS', env.ELICITKIT_TURN_LEASE_MS, 30_000, 1000, 600_000),
    secrets: readSecrets(env.ELICITKIT_SECRETS),
  };
}

function whole(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return n;
}

function readRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = '';
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    // Not the value itself: a URL may carry a password.
    throw new Error(
      `REDIS_URL must be a redis:// or rediss:// URL${protocol ? `, not ${protocol}//…` : ' (it is not a URL)'}`,
    );
  }
  return raw;
}

function readModel(env: Env): ModelConfig | undefined {
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return undefined;
  return {
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
    // V8 quotes a piece of the text around the mistake, which may be part of a header's token: not shown.
    const why = (error instanceof Error ? error.message : String(error)).replace(
      /,\s*(\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s,
      '',
    );
    throw new Error(`ELICITKIT_SERVERS is not valid JSON: ${why}`);
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
    const revision = readRevision(e, where);
    if (typeof e.url === 'string') {
      let url: URL;
      try {
        url = new URL(e.url);
        if (!/^https?:$/.test(url.protocol)) throw new Error('not http(s)');
      } catch {
        throw new Error(`${where}.url must be an http(s) URL`);
      }
      // fetch refuses such a URL: every request would fail.
      if (url.username || url.password) {
        throw new Error(`${where}.url must not carry a user name or password: send credentials in "headers"`);
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
      return { name, kind: 'http', url: e.url, headers: headers as Record<string, string>, revision };
    }
    if (Array.isArray(e.command) && e.command.length > 0 && e.command.every((c) => typeof c === 'string' && c)) {
      const [command, ...args] = e.command as string[];
      return { name, kind: 'stdio', command: command as string, args, revision };
    }
    throw new Error(`${where} needs "url" (a string) or "command" (a non-empty array of strings)`);
  });
}

/**
 * `"revision"` names it (a revision or `"auto"`); `"era"` — deprecated, still read — says
 * `"legacy"`, `"modern"` or `"auto"`. Neither: `"auto"`, as on the command line (one reader for
 * both: `parseRevisionChoice`).
 */
function readRevision(entry: Record<string, unknown>, where: string): RevisionChoice {
  try {
    return parseRevisionChoice(entry, { revision: `${where}.revision`, era: `${where}.era` }).choice ?? 'auto';
  } catch (error) {
    if (error instanceof RevisionChoiceError) throw new Error(error.message);
    throw error;
  }
}

function readSecrets(raw: string | undefined): 'warn' | 'decline' {
  if (raw === undefined || raw === '') return 'warn';
  if (raw !== 'warn' && raw !== 'decline')
    throw new Error(`ELICITKIT_SECRETS must be "decline" or "warn", not "${raw}"`);
  return raw;
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

/**
 * What is wrong with the environment, as one line for the page and the terminal ("The
 * configuration is invalid: …"), or undefined when `config()` can be read.
 *
 * @example
 * const problem = configProblem(); if (problem) return Response.json({ error: problem }, { status: 500 });
 */
export function configProblem(read: () => unknown = config, locale: Locale = 'en'): string | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    return REFUSED[locale].configInvalid(error instanceof Error ? error.message : String(error));
  }
}
