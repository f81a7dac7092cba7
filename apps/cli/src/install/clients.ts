import { homedir, userInfo } from 'node:os';
import { posix, win32 } from 'node:path';

/** The MCP clients `elicitkit install` knows how to configure. */
export const CLIENT_IDS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'trae'] as const;
/** One of {@link CLIENT_IDS}. */
export type ClientId = (typeof CLIENT_IDS)[number];
/** Where the entry goes: the current project, or the user's own settings. */
export type Scope = 'project' | 'user';

/** A JSON value, as written into a config file. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Everything about the machine the config paths depend on; injectable so tests never touch the real home. */
export interface InstallContext {
  home: string;
  platform: NodeJS.Platform;
  /** `%APPDATA%` on Windows. */
  appData: string | undefined;
  /** `$XDG_CONFIG_HOME` on Linux and the BSDs (used only when absolute, as the XDG spec says). */
  xdgConfigHome?: string | undefined;
  cwd: string;
}

/** This machine's {@link InstallContext}, with any part replaced (tests pass their own home and cwd). */
export function installContext(overrides: Partial<InstallContext> = {}): InstallContext {
  return {
    home: homeDirectory(),
    platform: process.platform,
    appData: process.env.APPDATA,
    xdgConfigHome: process.env.XDG_CONFIG_HOME,
    cwd: process.cwd(),
    ...overrides,
  };
}

/** How one client stores its MCP servers. */
export interface ClientSpec {
  id: ClientId;
  /** The property of the root object that holds the servers, keyed by name. */
  rootKey: 'mcpServers' | 'servers';
  /** The client itself reads comments and trailing commas (VS Code's JSONC); others read plain JSON. */
  jsonc: boolean;
  /** Scopes in order of preference: the first is the default. */
  scopes: readonly Scope[];
  /** The entry for a stdio server, in the shape the client documents. */
  entry(command: string, args: readonly string[]): JsonValue;
  /**
   * The entry for a remote (Streamable HTTP) server, or why this client cannot take one in its
   * config file.
   */
  httpEntry: ((url: string, headers: Readonly<Record<string, string>>) => JsonValue) | { refused: string };
  path(scope: Scope, ctx: InstallContext): string;
}

const plain = (command: string, args: readonly string[]): JsonValue => ({ command, args: [...args] });
const typed = (command: string, args: readonly string[]): JsonValue => ({ type: 'stdio', command, args: [...args] });
const withHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.keys(headers).length === 0 ? {} : { headers: { ...headers } };
/** `{ url, headers }`: Cursor and Trae tell a remote server by its `url`. */
const plainHttp = (url: string, headers: Readonly<Record<string, string>>): JsonValue => ({
  url,
  ...withHeaders(headers),
});
/** `{ type: "http", url, headers }`: Claude Code and VS Code name the transport. */
const typedHttp = (url: string, headers: Readonly<Record<string, string>>): JsonValue => ({
  type: 'http',
  url,
  ...withHeaders(headers),
});

/**
 * The home directory: `$HOME`, or, when that is empty or relative, the account's own (a relative
 * home would put a user-scope config into whatever folder the command ran in).
 */
function homeDirectory(): string {
  const home = homedir();
  if (posix.isAbsolute(home) || win32.isAbsolute(home)) return home;
  try {
    return userInfo().homedir;
  } catch {
    return home;
  }
}

/** The platform's own path rules, so Windows paths come out right even when tests run elsewhere. */
const paths = (ctx: InstallContext) => (ctx.platform === 'win32' ? win32 : posix);

/** The home directory for a user-scope path; refused when it is not absolute (no folder of the cwd stands in). */
function home(ctx: InstallContext): string {
  if (!paths(ctx).isAbsolute(ctx.home))
    throw new Error(
      `the home directory is not known (HOME is ${JSON.stringify(ctx.home)}): set HOME to an absolute path for --scope user`,
    );
  return ctx.home;
}

/**
 * Per-user application data, where Electron apps keep theirs: `~/Library/Application Support`,
 * `%APPDATA%`, or `$XDG_CONFIG_HOME` (when absolute) else `~/.config`.
 */
function appDataDir(ctx: InstallContext): string {
  const p = paths(ctx);
  if (ctx.platform === 'darwin') return p.join(home(ctx), 'Library', 'Application Support');
  if (ctx.platform === 'win32') return ctx.appData || p.join(home(ctx), 'AppData', 'Roaming');
  if (ctx.xdgConfigHome && p.isAbsolute(ctx.xdgConfigHome)) return ctx.xdgConfigHome;
  return p.join(home(ctx), '.config');
}

/** The clients, keyed by id. */
export const CLIENTS: Readonly<Record<ClientId, ClientSpec>> = {
  'claude-code': {
    id: 'claude-code',
    rootKey: 'mcpServers',
    jsonc: false,
    scopes: ['project', 'user'],
    entry: typed,
    httpEntry: typedHttp,
    path: (scope, ctx) =>
      scope === 'project' ? paths(ctx).join(ctx.cwd, '.mcp.json') : paths(ctx).join(home(ctx), '.claude.json'),
  },
  'claude-desktop': {
    id: 'claude-desktop',
    rootKey: 'mcpServers',
    jsonc: false,
    scopes: ['user'],
    entry: plain,
    httpEntry: {
      refused:
        'claude_desktop_config.json only starts stdio servers; add a remote server in Claude Desktop under Settings → Connectors, or install a stdio command that bridges to it (after --)',
    },
    path: (_scope, ctx) => paths(ctx).join(appDataDir(ctx), 'Claude', 'claude_desktop_config.json'),
  },
  cursor: {
    id: 'cursor',
    rootKey: 'mcpServers',
    jsonc: false,
    scopes: ['project', 'user'],
    entry: plain,
    httpEntry: plainHttp,
    path: (scope, ctx) => paths(ctx).join(scope === 'project' ? ctx.cwd : home(ctx), '.cursor', 'mcp.json'),
  },
  vscode: {
    id: 'vscode',
    rootKey: 'servers',
    jsonc: true,
    scopes: ['project', 'user'],
    entry: typed,
    httpEntry: typedHttp,
    path: (scope, ctx) =>
      scope === 'project'
        ? paths(ctx).join(ctx.cwd, '.vscode', 'mcp.json')
        : paths(ctx).join(appDataDir(ctx), 'Code', 'User', 'mcp.json'),
  },
  trae: {
    id: 'trae',
    rootKey: 'mcpServers',
    jsonc: false,
    scopes: ['project', 'user'],
    entry: plain,
    httpEntry: plainHttp,
    path: (scope, ctx) => paths(ctx).join(scope === 'project' ? ctx.cwd : home(ctx), '.trae', 'mcp.json'),
  },
};

/**
 * Narrows a command-line word to a client id.
 * @example isClientId('cursor') // true
 */
export function isClientId(word: string): word is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(word);
}

/**
 * The config file one client reads for one scope.
 * @example configPath('claude-desktop', 'user', { home: '/Users/ana', platform: 'darwin', appData: undefined, cwd: '/' })
 * // '/Users/ana/Library/Application Support/Claude/claude_desktop_config.json'
 */
export function configPath(client: ClientId, scope: Scope, ctx: InstallContext): string {
  return CLIENTS[client].path(scope, ctx);
}
