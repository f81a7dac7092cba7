import { parseArgs } from 'node:util';
import { describeArguments, jsonText, listToolsSafely, revisionOptions, ToolSchemaError } from '@elicitkit/client';
import { Client } from '@modelcontextprotocol/client';
import { duplicateText } from '../duplicate-names.js';
import type { Io } from '../io.js';
import { connectTimeoutFrom, revisionFrom, TARGET_OPTIONS, targetFrom } from '../options.js';
import { indented, inLine, shownIo } from '../shown.js';
import { stopSignals } from '../signals.js';
import { connectionLost, connectTo, splitCommand } from '../target.js';
import { EXIT, refuseEmptyValues, UsageError } from '../usage.js';

/** `elicitkit tools <target> [--revision …|--era …] [--json]`: each tool with its arguments (`?` = optional). */
export async function tools(argv: string[], io: Io): Promise<number> {
  const { before, command } = splitCommand(argv);
  const { values, positionals } = parseArgs({
    args: before,
    allowPositionals: true,
    options: TARGET_OPTIONS,
    strict: true,
  });
  refuseEmptyValues(values);
  if (positionals.length > 1) throw new UsageError(`tools takes one target, got ${positionals.join(' ')}`);
  const target = targetFrom(positionals[0], command, values);
  const revision = revisionFrom(values, io);
  const timeoutMs = connectTimeoutFrom(process.env);
  const client = new Client({ name: 'elicitkit', version: '0.1.0' }, revisionOptions(revision));
  // Ctrl+C or SIGTERM: the server this started is stopped (the connection closed) before exiting.
  const stop = stopSignals();
  try {
    const transport = await connectTo(client, target, { revision, io, timeoutMs, signal: stop.signal });
    const {
      tools: list,
      skipped,
      duplicates,
    } = await listToolsSafely(client, { signal: stop.signal }).catch((error) => {
      throw connectionLost(transport, error, 'before it listed its tools');
    });
    const server = client.getServerVersion();
    // Every name, title and description is the server's: nothing in it may drive the terminal.
    const human = shownIo(io);
    // A tool the SDK refuses is named on stderr whatever the output, and in the JSON too.
    const warnSkipped = () => {
      for (const name of skipped)
        human.err(
          `elicitkit: warning: tool "${inLine(name)}" of server "${inLine(server?.name ?? target.label)}" is not a tool as MCP defines one; it is left out`,
        );
      // Every tool of the name is listed; which one a call reaches, only the server knows.
      for (const duplicate of duplicates)
        human.err(
          `elicitkit: warning: server "${inLine(server?.name ?? target.label)}": ${duplicateText(duplicate, (n) => `"${inLine(n)}"`)}`,
        );
    };
    if (values.json) {
      io.out(
        jsonText(
          {
            server: server ?? null,
            revision: client.getNegotiatedProtocolVersion?.() ?? null,
            tools: list,
            skipped,
            duplicates,
          },
          { space: 2 },
        ) ?? 'null',
      );
      warnSkipped();
      return EXIT.ok;
    }
    human.out(
      `${server ? `${inLine(server.name)} ${inLine(server.version)}` : target.label} — ${list.length} tool${list.length === 1 ? '' : 's'} (${client.getNegotiatedProtocolVersion?.() ?? '?'})`,
    );
    for (const tool of list) {
      human.out('');
      // A tool's heading is one line at the margin; what the server wrote under it stays indented.
      human.out(`${inLine(tool.name)}${tool.title && tool.title !== tool.name ? ` — ${inLine(tool.title)}` : ''}`);
      if (tool.description) human.out(indented(tool.description, '  '));
      // One tool's broken schema is that tool's problem: warn and go on listing the others.
      let lines: string[];
      try {
        lines = describeArguments(tool.inputSchema, { server: server?.name ?? target.label, tool: tool.name });
      } catch (error) {
        if (!(error instanceof ToolSchemaError)) throw error;
        human.out('    (arguments unknown: see the warning)');
        human.err(`elicitkit: warning: ${inLine(error.message, Number.POSITIVE_INFINITY)}`);
        continue;
      }
      for (const line of lines) human.out(indented(line, '    '));
    }
    warnSkipped();
    return EXIT.ok;
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    io.err(`elicitkit: stopped by ${String(stop.signal.reason)}; the server was closed.`);
    return stop.exitCode();
  } finally {
    stop.dispose();
    // For a stdio server: its stdin ended, then SIGTERM, then SIGKILL (the SDK's close).
    await client.close().catch(() => {});
  }
}
