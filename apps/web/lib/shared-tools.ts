import { createHash } from 'node:crypto';
import { SchemaValidator } from '@elicitkit/client/schema-validator';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator, Tool } from '@modelcontextprotocol/client';

// What every chat's MCP client would otherwise hold a copy of: the tools list a server sent (each
// SDK `Client` keeps it as a JSON string, and decodes it again into its own index on the first
// call) and the compiled output schemas (each `Client` builds its own Ajv engine for them). Both
// are shared here by content only: a chat gets the shared copy of exactly what its own connection
// received, so no chat ever sees a list or schema that another chat's server sent and its own did
// not.

/** A tools list as one connection received it; frozen, since chats of any user may share it. */
export type ToolList = readonly Tool[];

const KEY = Symbol.for('elicitkit.web.sharedTools');

interface Shared {
  /** Lists by a digest of their JSON; an entry lives while some connection holds its list. */
  lists: Map<string, WeakRef<ToolList>>;
  forget: FinalizationRegistry<string>;
  validator: SharedSchemaValidator;
}

/** One copy per process, on globalThis as `state()` is, so every route (and a dev reload) shares it. */
function shared(): Shared {
  const g = globalThis as { [KEY]?: Shared };
  if (!g[KEY]) {
    const lists = new Map<string, WeakRef<ToolList>>();
    g[KEY] = {
      lists,
      forget: new FinalizationRegistry((key: string) => {
        if (lists.get(key)?.deref() === undefined) lists.delete(key);
      }),
      validator: new SharedSchemaValidator(),
    };
  }
  return g[KEY];
}

/**
 * The shared copy of `tools`: the list already held for the same content (by a SHA-256 of its
 * JSON), or `tools` itself, frozen, from now on the one held. Chats of one user (or of one
 * configured server) hold one list between them instead of one each.
 *
 * @example
 * connection.tools = internTools((await client.listTools(undefined, { cacheMode: 'bypass' })).tools);
 */
export function internTools(tools: Tool[]): ToolList {
  const { lists, forget } = shared();
  const key = createHash('sha256').update(JSON.stringify(tools)).digest('base64url');
  const held = lists.get(key)?.deref();
  if (held) return held;
  const list = deepFreeze(tools);
  lists.set(key, new WeakRef(list));
  forget.register(list, key);
  return list;
}

/** How many distinct tools lists are held now (tests). */
export function heldToolLists(): number {
  let n = 0;
  for (const ref of shared().lists.values()) if (ref.deref()) n++;
  return n;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The JSON Schema validator every chat's MCP client is given (`ClientOptions.jsonSchemaValidator`). */
export function schemaValidator(): jsonSchemaValidator {
  return shared().validator;
}

/** Distinct schemas compiled on one engine before it is replaced by a fresh one (a bound on memory). */
const ENGINE_SCHEMAS = 256;

/**
 * The client's validator (`SchemaValidator`: Ajv as the SDK builds it, a server's patterns run in
 * linear time and every check in its own process within a bound, so one hostile result cannot stall
 * every chat of this process), shared: each
 * schema compiled once — found by the schema object (an interned list's schemas) or else by its
 * JSON — instead of once per client. A compiled validator depends on its schema alone, so sharing
 * it shares nothing between chats but the code that checks a result. A schema declaring `$id` gets
 * an engine of its own: on a shared one, another server's schema with the same `$id` would be
 * found in its place. After `ENGINE_SCHEMAS` distinct schemas the engine starts afresh (validators
 * handed out keep working), so a server sending ever-new schemas cannot grow it without bound.
 */
export class SharedSchemaValidator implements jsonSchemaValidator {
  // In a process of its own, bounded (2 s, 256 MB): a schema whose checks grow exponentially, or a
  // `uniqueItems` over tens of thousands of objects, is reported not checked rather than holding
  // every chat of this process.
  private engine = new SchemaValidator();
  private bySource = new Map<string, JsonSchemaValidator<unknown>>();
  private byObject = new WeakMap<object, JsonSchemaValidator<unknown>>();
  /** Schemas compiled so far (tests). */
  compiled = 0;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const known = this.byObject.get(schema);
    if (known) return known as JsonSchemaValidator<T>;
    const source = JSON.stringify(schema);
    let validator = this.bySource.get(source);
    if (!validator) {
      if (this.bySource.size >= ENGINE_SCHEMAS) {
        this.engine = new SchemaValidator();
        this.bySource.clear();
      }
      // A failed compile throws here, as the SDK's own validator does, and nothing is kept. A schema
      // with an `$id` is compiled on an engine of its own by SchemaValidator itself.
      validator = this.engine.getValidator<unknown>(schema);
      this.compiled++;
      this.bySource.set(source, validator);
    }
    this.byObject.set(schema, validator);
    return validator as JsonSchemaValidator<T>;
  }
}
