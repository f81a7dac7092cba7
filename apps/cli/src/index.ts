export type { Io } from './io.js';
export { main } from './main.js';
export { EXIT } from './usage.js';
