export { type Io, main } from './main.js';
export { EXIT } from './usage.js';
