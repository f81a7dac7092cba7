/**
 * @elicitkit/client — the answering side of MCP elicitation for the official SDK v2 `Client`:
 * request checks, policy, a pending registry, and terminal, scripted and registry renderers.
 *
 * Browser-safe. The terminal renderer (`createTerminalRenderer`, `createSystemOpener`) needs Node
 * streams and `child_process`, so it lives behind the `@elicitkit/client/terminal` subpath.
 *
 * @example
 * import { Client } from '@modelcontextprotocol/client';
 * import { attach } from '@elicitkit/client';
 * import { createTerminalRenderer } from '@elicitkit/client/terminal';
 *
 * const client = new Client({ name: 'my-host', version: '1.0.0' });
 * attach(client, { renderer: createTerminalRenderer(), onEvent: (e) => console.error(e.type) });
 * await client.connect(transport);
 */

// Errors
export { describeArguments, toolArguments } from './arguments.js';
export type { ElicitationEvent } from './attach/events.js';
// Attaching to a client
export { type Attachment, type AttachOptions, attach } from './attach/index.js';
// Checks, usable on their own (a host that receives requests some other way)
export { type CheckedForm, checkFormRequest, type RejectedForm } from './checks/form.js';
export { type InspectedUrl, inspectUrl, type RejectedUrl } from './checks/url.js';
export { ArgumentError, AttachError, RegistryError, ScriptError, ToolSchemaError } from './errors.js';
export { type InputSchema, type PropertySchema, readInputSchema, type ToolSource } from './input-schema.js';
// Policy
export { DEFAULT_POLICY, type Policy } from './policy/index.js';
// Pending registry
export { createMemoryRegistry, type MemoryRegistryOptions } from './registry/memory.js';
export type { OpenOptions, PendingRegistry, ResolveResult, SetTimer } from './registry/types.js';
// Renderers
export { createRegistryRenderer, type RegistryRendererOptions } from './renderers/registry/index.js';
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
// The shapes renderers draw and return
export type {
  Answer,
  Cancelled,
  Declined,
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
