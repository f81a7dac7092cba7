import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_IDS, CLIENTS, configPath, type InstallContext, isClientId } from './clients.js';
import { opsdeskCommand } from './default-command.js';

const mac: InstallContext = { home: '/Users/ana', platform: 'darwin', appData: undefined, cwd: '/Users/ana/shop' };
const linux: InstallContext = { home: '/home/ana', platform: 'linux', appData: undefined, cwd: '/home/ana/shop' };
const windows: InstallContext = {
  home: 'C:\\Users\\ana',
  platform: 'win32',
  appData: 'D:\\Roaming',
  cwd: 'C:\\Users\\ana\\shop',
};

describe('configPath', () => {
  it('puts claude-desktop in each platform’s application data folder', () => {
    expect(configPath('claude-desktop', 'user', mac)).toBe(
      '/Users/ana/Library/Application Support/Claude/claude_desktop_config.json',
    );
    expect(configPath('claude-desktop', 'user', linux)).toBe('/home/ana/.config/Claude/claude_desktop_config.json');
    expect(configPath('claude-desktop', 'user', windows)).toBe('D:\\Roaming\\Claude\\claude_desktop_config.json');
  });

  it('puts VS Code user servers beside its settings on each platform', () => {
    expect(configPath('vscode', 'user', mac)).toBe('/Users/ana/Library/Application Support/Code/User/mcp.json');
    expect(configPath('vscode', 'user', linux)).toBe('/home/ana/.config/Code/User/mcp.json');
    expect(configPath('vscode', 'user', windows)).toBe('D:\\Roaming\\Code\\User\\mcp.json');
  });

  it('falls back to the roaming profile when %APPDATA% is unset', () => {
    expect(configPath('vscode', 'user', { ...windows, appData: undefined })).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\Code\\User\\mcp.json',
    );
  });

  it('uses the home folder for the other user scopes', () => {
    expect(configPath('claude-code', 'user', linux)).toBe('/home/ana/.claude.json');
    expect(configPath('cursor', 'user', linux)).toBe('/home/ana/.cursor/mcp.json');
    expect(configPath('trae', 'user', linux)).toBe('/home/ana/.trae/mcp.json');
    expect(configPath('cursor', 'user', windows)).toBe('C:\\Users\\ana\\.cursor\\mcp.json');
  });

  it('uses the working directory for project scopes', () => {
    expect(configPath('claude-code', 'project', linux)).toBe('/home/ana/shop/.mcp.json');
    expect(configPath('cursor', 'project', linux)).toBe('/home/ana/shop/.cursor/mcp.json');
    expect(configPath('vscode', 'project', linux)).toBe('/home/ana/shop/.vscode/mcp.json');
    expect(configPath('trae', 'project', windows)).toBe('C:\\Users\\ana\\shop\\.trae\\mcp.json');
  });
});

describe('clients', () => {
  it('writes each client’s documented entry shape under its own root key', () => {
    const shapes = Object.fromEntries(
      CLIENT_IDS.map((id) => [id, { [CLIENTS[id].rootKey]: CLIENTS[id].entry('node', ['s.js']) }]),
    );
    expect(shapes).toEqual({
      'claude-code': { mcpServers: { type: 'stdio', command: 'node', args: ['s.js'] } },
      'claude-desktop': { mcpServers: { command: 'node', args: ['s.js'] } },
      cursor: { mcpServers: { command: 'node', args: ['s.js'] } },
      vscode: { servers: { type: 'stdio', command: 'node', args: ['s.js'] } },
      trae: { mcpServers: { command: 'node', args: ['s.js'] } },
    });
  });

  it('defaults to the project scope except where a client has none', () => {
    expect(CLIENT_IDS.map((id) => CLIENTS[id].scopes[0])).toEqual(['project', 'user', 'project', 'project', 'project']);
  });

  it('recognises client ids and nothing else', () => {
    expect(CLIENT_IDS.every(isClientId)).toBe(true);
    expect(isClientId('vs-code')).toBe(false);
    expect(isClientId('toString')).toBe(false);
  });
});

describe('opsdeskCommand', () => {
  it('runs this CLI’s bin with the current node, by absolute paths', () => {
    const [node, bin, ...rest] = opsdeskCommand();
    expect(node).toBe(process.execPath);
    expect(isAbsolute(bin ?? '')).toBe(true);
    expect(bin).toMatch(/apps[/\\]cli[/\\]bin[/\\]elicitkit\.js$/);
    expect(existsSync(bin ?? '')).toBe(true);
    expect(rest).toEqual(['serve', '--stdio']);
  });
});
