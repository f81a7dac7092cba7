/**
 * @elicitkit/server — MCP tools that ask the human. A handler awaits `ask(key, {message})` and
 * gets a typed `Outcome`, the same on 2025-06-18, 2025-11-25 and 2026-07-28, over any transport;
 * its side effect goes through `commit`, which acts once however often the call is replayed. The
 * SQLite claim store is behind `@elicitkit/server/sqlite`.
 *
 * This file is the public API, written deliberately (`src/public-api.test.ts` pins it).
 */

// Defining a tool that asks
export type { AskOptions, AskUrlOptions } from './ask-options.js';
// The audit trail: request, response and validation records, and rule violations
export type {
  AuditEvent,
  AuditRequest,
  AuditResponse,
  AuditSink,
  AuditValidation,
  AuditViolation,
  Redaction,
} from './audit.js';
export type { CloseReason } from './channel/channel.js';
// The side effect, at most once however often a call is replayed (`ctx.commit`)
export { createMemoryClaimStore } from './claims/memory.js';
export type { AtomicResult, Claim, ClaimOptions, ClaimResult, ClaimStore } from './claims/types.js';
export type { Attempt, AttemptEffect, CommitOptions, Effect, Withheld } from './commit.js';
// Errors: a mistake in the tool's code, or a form that breaks the rule catalogue
export { ElicitkitUsageError, FormLintError } from './errors.js';
// Serving HTTP: every revision on one endpoint, 2025 sessions limited per identity
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http/handler.js';
export { LIMIT_REACHED, type LimitName } from './http/replies.js';
export type { SessionDirectory } from './http/session-directory.js';
export type { Check, CheckIssue } from './issues.js';
// The kit: one per process, making the servers that carry the tools
export { type CreateServerOptions, createElicitkit, type Elicitkit, type ElicitkitOptions } from './kit.js';
// Language: every ready-made text exists once per locale, and apps build their own tables the same way
export { LOCALES, type Locale, type LocaleTables } from './messages.js';
// What a question ends with: only `accept` carries a value, every other outcome its ready result
export {
  type Accepted,
  type AnyOutcome,
  type Cancelled,
  type Declined,
  type Invalid,
  type MissingArgument,
  match,
  type Outcome,
  type OutcomeHandlers,
  type Pending,
  QUESTION_UNSTABLE,
  type TimedOut,
  type Unsupported,
  type UrlOutcome,
} from './outcome.js';
// What a tool returns: a result with `structuredContent.status`, and the schema that declares it
export { done, invalid, outcomeSchema, pending, rejected, STATUSES, type Status } from './results.js';
export {
  type AnyTool,
  type AskFn,
  defineTool,
  type ElicitingTool,
  type Forms,
  type ToolContext,
  type ToolSpec,
} from './tool.js';
