import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createElicitkit } from './kit.js';
import { done } from './results.js';
import { defineTool } from './tool.js';

/** A zod schema whose JSON Schema conversions are counted. */
function counted(schema: z.ZodType): { schema: StandardSchemaWithJSON; conversions: () => number } {
  let n = 0;
  const real = schema['~standard'] as StandardSchemaWithJSON['~standard'];
  const jsonSchema = real.jsonSchema;
  const wrapped: StandardSchemaWithJSON = {
    '~standard': {
      ...real,
      jsonSchema: {
        input: (options) => {
          n++;
          return jsonSchema.input(options);
        },
        output: (options) => {
          n++;
          return jsonSchema.output(options);
        },
      },
    },
  };
  return { schema: wrapped, conversions: () => n };
}

describe('JSON Schema conversion', () => {
  it('happens once per schema, however many servers (sessions, requests) list and call the tool', async () => {
    const input = counted(z.object({ service: z.string() }));
    const output = counted(z.looseObject({ status: z.string() }));
    const tool = defineTool({
      name: 'echo',
      description: 'Echo the service back',
      inputSchema: input.schema,
      outputSchema: output.schema,
      async run(args) {
        return done(`got ${(args as { service: string }).service}`);
      },
    });
    const kit = createElicitkit();
    for (let i = 0; i < 3; i++) {
      const server = kit.createServer({ name: 's', version: '1' }, [tool]);
      const client = new Client({ name: 'c', version: '1' });
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      await client.connect(b);
      const { tools } = await client.listTools();
      expect(tools[0]?.inputSchema).toMatchObject({ properties: { service: { type: 'string' } } });
      const result = await client.callTool({ name: 'echo', arguments: { service: 'api' } });
      expect(result.structuredContent).toMatchObject({ status: 'done' });
      await client.close();
      await server.close();
    }
    expect(input.conversions()).toBe(1);
    expect(output.conversions()).toBe(1);
  });
});
