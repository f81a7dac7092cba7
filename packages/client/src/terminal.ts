/**
 * @elicitkit/client/terminal — the terminal renderer (prompts drawn here on @clack/core’s key handling, in clack’s look), the filter it prints
 * server text through (`clean`), and the system browser opener. Node-only, so it lives behind its
 * own subpath and never reaches a browser bundle.
 */

export { clean } from './renderers/terminal/format.js';
export {
  createSystemOpener,
  createTerminalRenderer,
  type Spawn,
  type SystemOpenerOptions,
  type TerminalRendererOptions,
} from './renderers/terminal/index.js';
