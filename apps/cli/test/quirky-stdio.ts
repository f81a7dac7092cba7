/**
 * Test servers for doctor's client profiles and restart check, over stdio:
 * - `four`: a tool that asks four questions in a row (Cursor folds from the 3rd);
 * - `changing FILE`: a server whose capabilities and tools change on every start (the start
 *   count is kept in FILE), as a server does when a deploy changes it under a cached client.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { field, form } from '@elicitkit/form';
import { createElicitkit, defineTool, done, outcomeSchema } from '@elicitkit/server';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const [mode, file] = process.argv.slice(2);

const QUESTIONS = {
  name: form({ name: field.string({ title: 'Workspace name', minLength: 1 }) }),
  plan: form({
    plan: field.select(
      [
        { value: 'free', title: 'Free' },
        { value: 'team', title: 'Team' },
      ],
      { title: 'Plan' },
    ),
  }),
  updates: form({ updates: field.boolean({ title: 'Send me product updates', default: false }) }),
  seats: form({ seats: field.integer({ title: 'Seats', minimum: 1, maximum: 50 }) }),
};

function fourQuestions() {
  const kit = createElicitkit();
  const onboard = defineTool({
    name: 'onboard',
    description: 'Sets up a workspace, asking four questions one after another.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ workspace: z.string() }),
    forms: QUESTIONS,
    maxAsks: 4,
    async run(_args, { ask }) {
      const name = await ask('name', { message: 'What should the new workspace be called?' });
      if (name.action !== 'accept') return name.result();
      const plan = await ask('plan', { message: `Which plan for workspace ${name.value.name}?` });
      if (plan.action !== 'accept') return plan.result();
      const updates = await ask('updates', { message: `Should ${name.value.name} get product update emails?` });
      if (updates.action !== 'accept') return updates.result();
      const seats = await ask('seats', { message: `How many seats does ${name.value.name} need?` });
      if (seats.action !== 'accept') return seats.result();
      return done(`Workspace ${name.value.name} on ${plan.value.plan}.`, { workspace: name.value.name });
    },
  });
  return kit.createServer({ name: 'four-questions', version: '1.0.0' }, [onboard]);
}

/** This process's start number, counted once per process (the factory may run per connection). */
function countStart(counter: string): number {
  let starts = 0;
  try {
    starts = Number(readFileSync(counter, 'utf8')) || 0;
  } catch {
    // The first start: no count yet.
  }
  writeFileSync(counter, String(starts + 1));
  return starts + 1;
}

function changing(starts: number) {
  const odd = starts % 2 === 1;
  const server = new McpServer(
    { name: 'changing', version: `1.0.${starts}` },
    { capabilities: odd ? { logging: {} } : {} },
  );
  const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  server.registerTool('status', { description: 'Always there.', inputSchema: z.object({}) }, ok);
  if (odd) server.registerTool('deploy', { description: 'Only on odd starts.', inputSchema: z.object({}) }, ok);
  // A restart on demand: answers, then the process exits (the host must start it again).
  server.registerTool('stop', { description: 'Exits after answering.', inputSchema: z.object({}) }, () => {
    setTimeout(() => process.exit(0), 50);
    return ok();
  });
  return server;
}

if (mode === 'four') serveStdio(fourQuestions);
else if (mode === 'changing' && file) {
  const starts = countStart(file);
  serveStdio(() => changing(starts));
} else {
  process.stderr.write('usage: quirky-stdio.ts four | changing FILE\n');
  process.exit(2);
}
