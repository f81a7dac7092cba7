/**
 * @elicitkit/client/terminal — the terminal renderer (on @clack/prompts) and the system browser
 * opener. Node-only, so it lives behind its own subpath and never reaches a browser bundle.
 */
export {
  createSystemOpener,
  createTerminalRenderer,
  type Spawn,
  type SystemOpenerOptions,
  type TerminalRendererOptions,
} from './renderers/terminal/index.js';
