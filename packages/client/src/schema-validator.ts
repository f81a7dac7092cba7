/**
 * @elicitkit/client/schema-validator — JSON Schema checks a server cannot stall: Ajv as the MCP
 * SDK builds it, every `pattern` run in time linear in the text (RE2JS). For a host talking to
 * servers it does not control (`ClientOptions.jsonSchemaValidator`), and for a page checking a
 * call against a tool's input schema before sending it.
 *
 * @example
 * import { SchemaValidator } from '@elicitkit/client/schema-validator';
 * const client = new Client(info, { jsonSchemaValidator: new SchemaValidator() });
 */
export { type LinearPattern, linearPattern } from './schema/linear-pattern.js';
export { SchemaValidator, type SchemaValidatorOptions, schemaEngine } from './schema/validator.js';
