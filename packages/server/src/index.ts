/**
 * @elicitkit/server — MCP tools that ask the human. A handler awaits `ask(key, {message})` and
 * gets a typed `Outcome`, the same on 2025-06-18, 2025-11-25 and 2026-07-28, over any transport;
 * its side effect goes through `commit`, which acts once however often the call is replayed.
 *
 * This file is the public API, written deliberately (`src/public-api.test.ts` pins it, at most 35
 * names). The rest lives behind subpaths: `/sqlite`, `/postgres` and `/redis` (claim stores; Redis's
 * relay too), `/node` (the Node listener), `/stores` (what a claim store or session directory of your
 * own implements).
 * Types not named here are reached from the ones that are (`docs/server.md`, "The public API").
 */

// Defining a tool that asks
export type { AskOptions } from './ask-options.js';
// The audit trail: requests, responses, validations and rule violations
export type { AuditEvent, AuditSink } from './audit.js';
// The side effect, once however often a call is replayed (`ctx.commit`, `ctx.attempt`)
export { createMemoryClaimStore } from './claims/memory.js';
export type { ClaimStore } from './claims/types.js';
export type { AttemptEffect, CommitOptions, Effect } from './commit.js';
// Errors: a mistake in the tool's code, or a form that breaks the rule catalogue
export { ElicitkitUsageError, FormLintError } from './errors.js';
// Serving HTTP: every revision on one endpoint, 2025 sessions limited per identity
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http/handler.js';
export { LIMIT_REACHED } from './http/replies.js';
// The kit: one per process, making the servers that carry the tools
export { createElicitkit, type Elicitkit, type ElicitkitOptions } from './kit.js';
// Language: every ready-made text exists once per locale, and apps build their own tables the same way
export { LOCALES, type Locale, type LocaleTables } from './messages.js';
// What a question ends with: only `accept` carries a value, every other outcome its ready result
export { match, type Outcome, QUESTION_UNSTABLE } from './outcome.js';
// What a tool returns: a result with `structuredContent.status`, and the schema that declares it
export { done, invalid, outcomeSchema, pending, rejected, STATUSES, type Status } from './results.js';
export { type AnyTool, defineTool, type ElicitingTool, type ToolContext, type ToolSpec } from './tool.js';
