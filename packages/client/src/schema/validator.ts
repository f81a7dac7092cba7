import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { linearPattern } from './linear-pattern.js';

type AjvCore = Ajv | Ajv2019 | Ajv2020;
const addFormats = formats.default;
/** Ajv's `code.regExp`: every `pattern` and `patternProperties` key of a schema, in linear time. */
const regExp = Object.assign((pattern: string, flags: string) => linearPattern(pattern, flags), {
  code: 'linearPattern',
});

/**
 * An Ajv engine for `schema`'s declared dialect, built as the MCP SDK's `AjvJsonSchemaValidator`
 * builds its own (no `$schema` or 2020-12: Ajv2020; 2019-09; draft-07 or -06: the classic Ajv;
 * not strict, formats checked, `ajv-formats`, every error), with every pattern checked in linear
 * time (`linearPattern`); `options` added to those. Undefined for any other dialect.
 *
 * @example
 * const engine = schemaEngine(tool.inputSchema, { ownProperties: true });
 * const valid = engine?.compile(tool.inputSchema)(args);
 */
export function schemaEngine(schema: object, options: Options = {}): AjvCore | undefined {
  const dialect = dialectOf(schema);
  return dialect && engineFor(dialect, options);
}

type Dialect = '2020-12' | '2019-09' | 'draft-07';

/** The dialect `schema` declares, as the SDK reads `$schema` (none: 2020-12); undefined for another. */
function dialectOf(schema: object): Dialect | undefined {
  const stated = (schema as { $schema?: unknown }).$schema;
  if (stated === undefined) return '2020-12';
  const declared = typeof stated === 'string' ? stated.replace(/#$/, '') : '';
  const is = (...uris: string[]) => uris.some((u) => declared === `https://${u}` || declared === `http://${u}`);
  if (is('json-schema.org/draft/2020-12/schema')) return '2020-12';
  if (is('json-schema.org/draft/2019-09/schema')) return '2019-09';
  if (is('json-schema.org/draft-07/schema', 'json-schema.org/draft-06/schema')) return 'draft-07';
  return undefined;
}

function engineFor(dialect: Dialect, options: Options): AjvCore {
  const all: Options = {
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
    ...options,
    code: { ...options.code, regExp },
  };
  const engine = dialect === '2020-12' ? new Ajv2020(all) : dialect === '2019-09' ? new Ajv2019(all) : new Ajv(all);
  addFormats(engine);
  return engine;
}

/**
 * The JSON Schema validator for an MCP client that talks to servers it does not control
 * (`ClientOptions.jsonSchemaValidator`): the SDK checks each tool's result against its declared
 * `outputSchema` with it. It judges as the SDK's default (`AjvJsonSchemaValidator`) does, but a
 * hostile `pattern` cannot stall the process: patterns run in linear time (`linearPattern`; one
 * RE2 cannot take is not checked). One engine per dialect, as the SDK's; a schema declaring
 * `$id` gets an engine of its own, so two servers' schemas with one `$id` never meet (the SDK's
 * would check the second against the first). A dialect other than 2020-12, 2019-09, draft-07 or
 * -06 throws, as the SDK's does.
 *
 * @example
 * import { Client } from '@modelcontextprotocol/client';
 * import { SchemaValidator } from '@elicitkit/client/schema-validator';
 * const client = new Client(info, { ...revisionOptions('auto'), jsonSchemaValidator: new SchemaValidator() });
 */
export class SchemaValidator implements jsonSchemaValidator {
  private readonly engines = new Map<Dialect, AjvCore>();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const dialect = dialectOf(schema as object);
    if (!dialect) {
      const stated = String((schema as { $schema?: unknown }).$schema);
      throw new Error(`the schema's dialect (${stated}) is not one this client reads`);
    }
    // A root `$id` is registered with the engine (a `$defs` entry's stays with its root schema).
    const ownEngine = typeof (schema as { $id?: unknown }).$id === 'string';
    let engine = ownEngine ? undefined : this.engines.get(dialect);
    if (!engine) {
      engine = engineFor(dialect, {});
      if (!ownEngine) this.engines.set(dialect, engine);
    }
    const validate = engine.compile(schema as object);
    const errorsText = engine.errorsText.bind(engine);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: errorsText(validate.errors) };
  }
}
