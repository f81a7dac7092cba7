/**
 * @elicitkit/server — MCP tools that ask the human. A handler awaits `ask(key, {message})` and
 * gets a typed `Outcome`, the same on 2025-06-18, 2025-11-25 and 2026-07-28, over any transport;
 * its side effect goes through `commit`, which acts once however often the call is replayed. The
 * SQLite claim store is behind `@elicitkit/server/sqlite`.
 */

export type { AskOptions, AskUrlOptions } from './ask-options.js';
export type {
  AuditEvent,
  AuditRequest,
  AuditResponse,
  AuditSink,
  AuditValidation,
  AuditViolation,
  Redaction,
} from './audit.js';
export { redact } from './audit.js';
export type { CloseReason } from './channel/channel.js';
export { createMemoryClaimStore } from './claims/memory.js';
export type { AtomicResult, Claim, ClaimOptions, ClaimResult, ClaimStore } from './claims/types.js';
export type { CommitOptions, Effect } from './commit.js';
export { ElicitkitUsageError, FormLintError } from './errors.js';
export { createHttpHandler, type HttpHandler, type HttpHandlerOptions } from './http/handler.js';
export { LIMIT_REACHED, type LimitName } from './http/replies.js';
export type { Check, CheckIssue } from './issues.js';
export { type CreateServerOptions, createElicitkit, type Elicitkit, type ElicitkitOptions } from './kit.js';
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
  type TimedOut,
  type Unsupported,
  type UrlOutcome,
} from './outcome.js';

export {
  cancelledResult,
  declinedResult,
  done,
  invalid,
  invalidResult,
  type Locale,
  outcomeSchema,
  pending,
  pendingResult,
  type ResultContext,
  rejected,
  STATUSES,
  type Status,
  type Subject,
  timeoutResult,
  unsupportedResult,
} from './results.js';
export {
  type AnyTool,
  type AskFn,
  defineTool,
  type ElicitingTool,
  type Forms,
  type ToolContext,
  type ToolSpec,
} from './tool.js';
