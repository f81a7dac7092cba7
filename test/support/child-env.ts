/**
 * Vitest setup file: opsdesk's shop worker, which every opsdesk a test opens starts as a process,
 * runs from this run's build of it (test/support/child-bundles.ts) instead of its sources under tsx;
 * so does the client's schema-check thread (`SchemaValidator`), which cannot load TypeScript.
 */
import { builtSchemaWorker, builtShopWorker } from './children.js';

const worker = builtShopWorker();
if (worker) process.env.ELICITKIT_SHOP_WORKER = worker;
const schemaWorker = builtSchemaWorker();
if (schemaWorker) process.env.ELICITKIT_SCHEMA_WORKER = schemaWorker;
