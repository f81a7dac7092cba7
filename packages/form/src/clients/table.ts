/**
 * The known clients. One entry per product; extend by adding an entry with its evidence (the
 * `docs/clients.md` ("How Elicitkit behaves in each client") is generated from this table:
 * `npm run docs:clients`). Entries are checked in order and the first match wins, so a more
 * specific pattern goes before a general one.
 */
import type { KnownClient } from './quirks.js';

/** The field notes behind this table: a survey of clients' elicitation support, summarized in `docs/clients.md` ("Sources"). */
const NOTES = 'client field notes (2026-10)';

/** Public MCP servers that log or branch on `clientInfo.name` (found through code search, 2026-11-30). */
const PUBLIC_CODE = 'public MCP server code that records clientInfo.name';

export const KNOWN_CLIENTS = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    patterns: [/^claude[- ]code\b/i],
    announces: 'claude-code',
    revision: '2025-11-25',
    support: 'full',
    quirks: {},
    looks: {
      form: 'an inline form in the terminal',
      boolean: 'y/N',
      select: 'a list chosen with the arrow keys',
      text: 'one line of input',
    },
    evidence: [
      { source: `${NOTES}: terminal inline form, arrow keys, y/N, Esc cancels`, date: '2026-10' },
      { source: `${PUBLIC_CODE}: "claude-code"`, date: '2026-11' },
      { source: 'revision: the one doctor plays it on, not observed', date: '2026-11-30', inferred: true },
    ],
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    patterns: [/^claude[- ]ai\b/i, /^claude[- ]desktop\b/i],
    announces: 'claude-ai',
    revision: '2025-11-25',
    support: 'full',
    quirks: {},
    looks: { form: 'a native dialog', boolean: 'a checkbox', select: 'a list', text: 'an input box' },
    evidence: [
      { source: `${NOTES} (native dialog, the best experience)`, date: '2026-10' },
      { source: `${PUBLIC_CODE}: "claude-ai" names Claude's apps`, date: '2026-11' },
      { source: "the dialog's widgets per kind are not described in the notes", date: '2026-11-30', inferred: true },
    ],
  },
  {
    id: 'cursor',
    name: 'Cursor',
    patterns: [/^cursor\b/i],
    announces: 'cursor-vscode',
    revision: '2025-11-25',
    support: 'supported',
    quirks: { foldsAfter: 3 },
    looks: { form: 'a card in the chat panel', boolean: 'a switch', select: 'a dropdown', text: 'an input box' },
    evidence: [
      { source: `${NOTES}: card: dropdown, switch, input; 3+ questions in a row are folded`, date: '2026-10' },
      { source: 'troubleshooting row 9 (questions folded: merge them into one form)', date: '2026-10' },
      { source: `${PUBLIC_CODE}: "cursor-vscode"`, date: '2026-11' },
    ],
  },
  {
    id: 'vscode',
    name: 'VS Code + Copilot',
    patterns: [/^visual[- ]studio[- ]code\b/i, /^vs ?code\b/i],
    announces: 'Visual Studio Code',
    revision: '2025-11-25',
    support: 'supported',
    quirks: {},
    looks: {
      form: 'a sequence of pickers at the top of the window',
      boolean: 'a Yes/No QuickPick',
      select: 'a QuickPick',
      text: 'an InputBox',
    },
    evidence: [
      {
        source: `${NOTES}: QuickPick for enums, InputBox for text, Yes/No QuickPick for booleans`,
        date: '2026-10',
      },
      {
        source: 'name "Visual Studio Code": public code matches it case-insensitively; not captured from a handshake',
        date: '2026-11-30',
        inferred: true,
      },
    ],
  },
  {
    id: 'trae',
    name: 'Trae',
    patterns: [/^trae\b/i],
    announces: 'Trae',
    revision: '2025-06-18',
    support: 'partial',
    quirks: { booleanAsChoice: true },
    looks: { form: 'a form in the chat', boolean: 'a broken fallback', select: 'a list', text: 'an input box' },
    evidence: [
      { source: `${NOTES} (partial: enums fine, booleans fall back)`, date: '2026-10' },
      { source: 'troubleshooting row 12 (booleans shown wrongly in Trae: ask Yes/No as an enum)', date: '2026-10' },
      {
        source: 'name "Trae" and revision 2025-06-18: not captured from a handshake',
        date: '2026-11-30',
        inferred: true,
      },
    ],
  },
  {
    id: 'cline',
    name: 'Cline',
    patterns: [/^cline\b/i],
    announces: 'Cline',
    revision: '2025-06-18',
    support: 'partial',
    quirks: { textOnly: true },
    looks: {
      form: 'a text prompt (some versions)',
      boolean: 'typed yes or no',
      select: 'a typed value',
      text: 'a typed line',
    },
    evidence: [
      { source: `${NOTES} (partial: some versions degrade the form to a text prompt)`, date: '2026-10' },
      {
        source: 'that a text prompt holds one field, and the name "Cline" and its revision, are inferred',
        date: '2026-11-30',
        inferred: true,
      },
    ],
  },
] as const satisfies readonly KnownClient[];

/** The id of a known client: `'claude-code' | 'cursor' | …`. */
export type KnownClientId = (typeof KNOWN_CLIENTS)[number]['id'];
