/**
 * @elicitkit/client — the answering side of MCP elicitation for the official SDK v2 `Client`:
 * request checks, policy, a pending registry, and scripted and registry renderers.
 *
 * Browser-safe. The terminal renderer (`createTerminalRenderer`, `createSystemOpener`) needs Node
 * streams and `child_process`, so it lives behind the `@elicitkit/client/terminal` subpath.
 *
 * @example
 * import { Client } from '@modelcontextprotocol/client';
 * import { attach, revisionOptions } from '@elicitkit/client';
 * import { createTerminalRenderer } from '@elicitkit/client/terminal';
 *
 * const client = new Client({ name: 'my-host', version: '1.0.0' }, revisionOptions('auto'));
 * attach(client, { renderer: createTerminalRenderer(), onEvent: (e) => console.error(e.type) });
 * await client.connect(transport);
 */

// Each section comment stands alone (a blank line after it), so sorting exports keeps it in place.

// Attaching to an SDK client: the handle, its options and policy (and a rate limiter to share across clients), what it reports, which revision it speaks, connecting within a deadline

export type { ElicitationEvent } from './attach/events.js';
export { type Attachment, type AttachOptions, attach } from './attach/index.js';
export type { UrlRequiredOutcome } from './attach/url-required.js';
export { type ConnectWithinOptions, connectWithin } from './connect.js';
export { type DuplicateName, listToolsSafely, type SafeToolList } from './list-tools.js';
export { DEFAULT_POLICY, type Policy } from './policy/index.js';
export { createRateLimiter, type RateLimiter } from './policy/rate-limit.js';
export {
  parseRevisionChoice,
  REVISION_CHOICES,
  type RevisionChoice,
  RevisionChoiceError,
  revisionOptions,
} from './revision.js';
export { type ServerDeadline, serverDeadline } from './server-deadline.js';
export { guardStreamEnds, STREAM_ENDED_MESSAGE } from './stream-end.js';

// What a renderer is, and the shapes it draws and returns

export type {
  Answer,
  FormAnswer,
  FormPrompt,
  Opener,
  Prompt,
  Renderer,
  RendererModes,
  ServerIdentity,
  UrlAnswer,
  UrlPrompt,
  UrlWarning,
  UrlWarningCode,
} from './types.js';

// The scripted renderer and its answers files (CI, doctor)

export {
  type AnswerProblem,
  formatAnswerProblems,
  type ParsedAnswers,
  parseAnswers,
  type ScriptedAnswer,
} from './renderers/scripted/answers.js';
export {
  createScriptedRenderer,
  type ScriptedRenderer,
  type ScriptedRendererOptions,
} from './renderers/scripted/index.js';

// Answering somewhere else (a web page): the registry renderer and the pending registry behind it

export { createMemoryRegistry, type MemoryRegistryOptions } from './registry/memory.js';
export {
  answerOf,
  type OpenOptions,
  type PendingEntry,
  type PendingRegistry,
  type ResolveResult,
  type SetTimer,
  type Settlement,
  type SettleReason,
} from './registry/types.js';
export { createRegistryRenderer, type RegistryRendererOptions } from './renderers/registry/index.js';

// The request checks `attach` runs, usable on their own (a host that receives requests another way)

export { type CheckedForm, checkFormRequest, type RejectedForm } from './checks/form.js';
export { MAX_MESSAGE_LENGTH, messageProblem } from './checks/message.js';
export type { Unanswerable, UnanswerableReason } from './checks/unanswerable.js';
export { type InspectedUrl, inspectUrl, type RejectedUrl } from './checks/url.js';

// A tool's arguments from `k=v` words, checked against its input schema (a CLI, a `/tool` chat command)

export { type ArgumentProblem, describeArguments, toolArguments, type ValueProblem } from './arguments.js';
// JSON a person typed, read so that what is sent is what was typed (the CLI's --args, a chat's {json}, answers)
export {
  type NotAsTyped,
  type NotAsTypedOptions,
  type NotAsTypedReason,
  notAsTyped,
  notAsTypedWhy,
  numberNotAsTyped,
} from './arguments-json.js';
export { numberReadAs } from './exact-number.js';
export { type SchemaFound, type SchemaProblem, schemaProblemText, type ToolSource } from './input-schema.js';
// JSON text of what a server sent, at any depth (JSON.parse reads deeper than JSON.stringify writes)
export { type JsonTextOptions, jsonText } from './json-text.js';

// Errors (each with a string `code`)

export {
  ArgumentError,
  AttachError,
  ConnectTimeoutError,
  RegistryError,
  ScriptError,
  ToolSchemaError,
} from './errors.js';
