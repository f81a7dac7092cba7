/**
 * @elicitkit/server/node — `createHttpHandler`'s endpoint on `node:http` (or Express), behind its
 * own subpath so the main entry stays free of Node-only code: the body read from the socket once,
 * the response written to it directly, a client that leaves noticed at once.
 */
export { type NodeListener, toNodeListener } from './http/node-listener.js';
