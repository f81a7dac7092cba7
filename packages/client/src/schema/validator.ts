import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';
import { Ajv, type Options } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { IsolatedChecks, IsolationUnavailable } from './isolated.js';
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
    // Ajv's warnings (an unknown format, verbatim) carry a server's own text, line breaks and
    // escapes included: never printed to the host's terminal or the checks process's stderr.
    logger: false,
    ...options,
    code: { ...options.code, regExp },
  };
  const engine = dialect === '2020-12' ? new Ajv2020(all) : dialect === '2019-09' ? new Ajv2019(all) : new Ajv(all);
  addFormats(engine);
  return engine;
}

/** What a check's message says at most (the SDK's `errorsText`, cut): a value can fail a schema in millions of ways. */
export const MAX_ERROR_TEXT = 4_000;

/**
 * Compiles schemas as `SchemaValidator` checks them — one engine per dialect, a schema declaring
 * `$id` on an engine of its own — each into a check that returns undefined for a value that
 * passes, else the SDK's message for it (at most `MAX_ERROR_TEXT` characters). Where the checks
 * run: on the caller's thread, or in `SchemaValidator`'s own process (`schema-worker.ts`).
 */
export class SchemaChecks {
  private readonly engines = new Map<Dialect, AjvCore>();
  /** Schemas compiled on the engines now in use: Ajv keeps each, so past `ENGINE_SCHEMAS` they are replaced. */
  private compiled = 0;

  /** Throws when the dialect is not one this client reads, or the schema does not compile. */
  compile(schema: object): (input: unknown) => string | undefined {
    const dialect = dialectOrThrow(schema);
    // Checks compiled on the engines replaced keep working: each holds its own.
    if (++this.compiled > ENGINE_SCHEMAS) {
      this.engines.clear();
      this.compiled = 1;
    }
    // A root `$id` is registered with the engine (a `$defs` entry's stays with its root schema).
    const ownEngine = typeof (schema as { $id?: unknown }).$id === 'string';
    let engine = ownEngine ? undefined : this.engines.get(dialect);
    if (!engine) {
      engine = engineFor(dialect, {});
      if (!ownEngine) this.engines.set(dialect, engine);
    }
    const validate = engine.compile(schema);
    const said = engine;
    return (input) => {
      if (validate(input)) return undefined;
      const text = said.errorsText(validate.errors?.slice(0, MAX_ERRORS_READ));
      return text.length > MAX_ERROR_TEXT || (validate.errors?.length ?? 0) > MAX_ERRORS_READ
        ? `${text.slice(0, MAX_ERROR_TEXT)} … (${validate.errors?.length ?? 0} errors in all)`
        : text;
    };
  }
}

/** Distinct schemas compiled on one engine before it is replaced by a fresh one (Ajv keeps every schema it compiled). */
const ENGINE_SCHEMAS = 256;

/** Errors read into a message: past these it is cut anyway. */
const MAX_ERRORS_READ = 200;

/** The dialect `schema` declares; throws for one this client does not read, as the SDK's validator does. */
function dialectOrThrow(schema: object): Dialect {
  const dialect = dialectOf(schema);
  if (dialect) return dialect;
  const stated = String((schema as { $schema?: unknown }).$schema);
  throw new Error(`the schema's dialect (${stated}) is not one this client reads`);
}

/** How long, and in how much memory, `SchemaValidator` checks (on Node). */
export interface SchemaValidatorOptions {
  /**
   * How long compiling one schema, or checking one value, may take, ms (default 2,000). Past it
   * the checks' process is ended: the schema is refused, or the value reported as not checked.
   * The caller's thread waits meanwhile (the SDK asks for a verdict, not a promise): a host
   * serving many clients on one thread keeps it short.
   */
  timeoutMs?: number;
  /**
   * The most memory, MB, the checks' process may hold in its heap (default 256;
   * `--max-old-space-size`): past it the process ends, and the check is reported as past the
   * time is, naming this bound.
   */
  maxMemoryMb?: number;
  /**
   * Checks in a process of their own, bounded (default, on Node), or on the caller's thread with
   * no bound but the linear patterns (`false`; always so in a browser).
   */
  isolated?: boolean;
}

/**
 * The JSON Schema validator for an MCP client that talks to servers it does not control
 * (`ClientOptions.jsonSchemaValidator`): the SDK checks each tool's result against its declared
 * `outputSchema` with it. It judges as the SDK's default (`AjvJsonSchemaValidator`) does, but a
 * server cannot stall the process with what it declares. Patterns run in linear time
 * (`linearPattern`; one RE2 cannot take is not checked). And on Node every schema is compiled,
 * and every value checked, in a process of the validator's own (`isolated.ts`), the caller
 * waiting for at most `timeoutMs`: a schema whose checks grow exponentially (`anyOf` over
 * `$ref`s to further `anyOf`s), `uniqueItems` over tens of thousands of objects — whatever costs
 * too much time or memory is ended there, the process with it (a new one takes the next check),
 * and reported: the schema refused (the SDK then refuses calls to that tool), the value as not
 * checked (the SDK refuses the result). In a browser (no threads to wait on) the checks run on
 * the caller's thread. A message lists what
 * failed, cut at `MAX_ERROR_TEXT` characters. One engine per dialect, as the SDK's; a schema
 * declaring `$id` gets an engine of its own, so two servers' schemas with one `$id` never meet
 * (the SDK's would check the second against the first). A dialect other than 2020-12, 2019-09,
 * draft-07 or -06 throws, as the SDK's does.
 *
 * @example
 * import { Client } from '@modelcontextprotocol/client';
 * import { SchemaValidator } from '@elicitkit/client/schema-validator';
 * const client = new Client(info, { ...revisionOptions('auto'), jsonSchemaValidator: new SchemaValidator() });
 */
export class SchemaValidator implements jsonSchemaValidator {
  private readonly here = new SchemaChecks();
  private isolated: IsolatedChecks | undefined;

  constructor(options: SchemaValidatorOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 2_000;
    const maxMemoryMb = options.maxMemoryMb ?? 256;
    if (!(Number.isInteger(timeoutMs) && timeoutMs > 0))
      throw new RangeError(`timeoutMs must be a whole number of milliseconds above 0, not ${String(timeoutMs)}`);
    if (!(Number.isInteger(maxMemoryMb) && maxMemoryMb >= 16))
      throw new RangeError(`maxMemoryMb must be a whole number of at least 16, not ${String(maxMemoryMb)}`);
    this.isolated = options.isolated === false ? undefined : IsolatedChecks.create({ timeoutMs, maxMemoryMb });
  }

  /** `schema` compiled in the checks' process, or on this thread where none could be started. */
  private compiled(schema: object): (input: unknown) => string | undefined {
    if (this.isolated) {
      try {
        return this.isolated.compile(schema);
      } catch (error) {
        if (!(error instanceof IsolationUnavailable)) throw error;
        this.isolated = undefined;
      }
    }
    return this.here.compile(schema);
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    dialectOrThrow(schema as object);
    const check = this.compiled(schema as object);
    return (input) => {
      const failed = check(input);
      return failed === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: failed };
    };
  }
}
