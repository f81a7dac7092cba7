/**
 * A stdio MCP server for the browser tests, built with @elicitkit/server: `every_field` asks one
 * form with every field kind the 2025-11-25 subset allows and returns what it received;
 * `handover` (raw SDK) asks two optional fields with defaults and returns the content as sent.
 * Run with `node --import tsx --conditions=@elicitkit/source apps/web/e2e/every-field-server.ts`.
 */
import { field, form } from '@elicitkit/form';
import { createElicitkit, defineTool, done, outcomeSchema } from '@elicitkit/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const EVERY_FIELD = form({
  name: field.string({ title: 'Display name', description: 'How the team sees you', minLength: 2, maxLength: 40 }),
  email: field.string({ title: 'Work email', format: 'email' }),
  homepage: field.string({ title: 'Homepage', format: 'uri' }).optional(),
  start: field.string({ title: 'Start date', format: 'date' }),
  window: field.string({ title: 'Maintenance window', format: 'date-time' }).optional(),
  budget: field.number({ title: 'Budget (USD)', minimum: 0, maximum: 10_000 }),
  replicas: field.integer({ title: 'Replicas', minimum: 1, maximum: 10, default: 2 }),
  agree: field.boolean({ title: 'I agree to the on-call rota', default: false }),
  region: field.select(
    [
      { value: 'eu', title: 'Europe' },
      { value: 'us', title: 'United States' },
      { value: 'ap', title: 'Asia Pacific' },
    ],
    { title: 'Region' },
  ),
  zone: field.select(['zone-a', 'zone-b', 'zone-c', 'zone-d', 'zone-e', 'zone-f', 'zone-g'], { title: 'Zone' }),
  notify: field.multiSelect(
    [
      { value: 'email', title: 'Email' },
      { value: 'sms', title: 'SMS' },
      { value: 'chat', title: 'Chat' },
    ],
    { title: 'Notify by', minItems: 1, maxItems: 2 },
  ),
  team: field.string({ title: '团队名称', description: '中文标签与说明应当清晰显示' }).optional(),
});

const everyField = defineTool({
  name: 'every_field',
  title: 'Every field kind',
  description: 'Asks one form with every field kind and returns the answer.',
  // `message`: the question's text, for a test that needs another (several lines, say).
  inputSchema: z.object({ message: z.string().optional() }),
  outputSchema: outcomeSchema({ answer: z.record(z.string(), z.unknown()) }),
  forms: { profile: EVERY_FIELD },
  async run({ message }, { ask }) {
    const answer = await ask('profile', { message: message ?? 'Tell us about the new service owner.' });
    if (answer.action !== 'accept') return answer.result();
    return done(`Received ${JSON.stringify(answer.value)}`, { answer: answer.value });
  },
});

// Optional fields with defaults, asked with the raw SDK so the tool sees the answer exactly as the
// client sent it (the kit's form would fill a left-out default in, as its own contract says): the
// page shows them filled in, and one the person clears must arrive cleared.
const HANDOVER = {
  type: 'object',
  properties: {
    note: { type: 'string', title: 'Handover note', default: 'none', maxLength: 80 },
    hours: { type: 'integer', title: 'On-call hours', default: 8, minimum: 1, maximum: 24 },
  },
} as const;

const kit = createElicitkit();
serveStdio(() => {
  const server = kit.createServer({ name: 'fieldkit', version: '1.0.0' }, [everyField]);
  server.registerTool(
    'handover',
    {
      title: 'Hand over on-call',
      description: 'Asks for an optional note and hours (both with defaults) and returns the answer as sent.',
      inputSchema: z.object({}),
    },
    async (_args, ctx) => {
      const result = await ctx.mcpReq.elicitInput({
        mode: 'form',
        message: 'Anything for the next person on call?',
        requestedSchema: HANDOVER,
      });
      return {
        content: [{ type: 'text', text: `${result.action}: received ${JSON.stringify(result.content ?? {})}` }],
      };
    },
  );
  return server;
});
