/**
 * Vitest setup file: opsdesk's shop worker, which every opsdesk a test opens starts as a process,
 * runs from this run's build of it (test/support/child-bundles.ts) instead of its sources under tsx.
 */
import { builtShopWorker } from './children.js';

const worker = builtShopWorker();
if (worker) process.env.ELICITKIT_SHOP_WORKER = worker;
