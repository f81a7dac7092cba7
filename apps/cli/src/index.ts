/**
 * elicitkit — the command line as a module: `main` runs one command line in-process, as the
 * binary does, writing through an `Io` of your own.
 */
export type { Io } from './io.js';
export { main } from './main.js';
export { EXIT } from './usage.js';
