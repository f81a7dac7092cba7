/**
 * `handler.notify`: a change to the tools (or prompts) the factory serves reaches 2026-07-28
 * clients on their `subscriptions/listen` stream (the SDK's own client opens one for
 * `listChanged`), and their next list is the new one. Before, the handler had no way to say it: the
 * stateless leg's change bus was the SDK's, out of reach, so a 2026-07-28 client never learned of a
 * tool added. A 2025 session keeps the server the factory made for it, and hears a change made on
 * that server. Replicas sharing a bus hear each other's changes. Real SDK clients over loopback
 * HTTP, both Node adapters.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryServerEventBus, type McpServer, type ServerEvent } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { ADAPTERS, type Adapter, listenerOf } from '../../test/loopback.js';
import { createElicitkit } from '../kit.js';
import { done } from '../results.js';
import { type AnyTool, defineTool } from '../tool.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {});
});

const named = (name: string) =>
  defineTool({
    name,
    description: name,
    inputSchema: z.object({}),
    forms: {},
    async run() {
      return done(name);
    },
  });

/** A factory over a list that changes: each new server (a request's, a session's) serves it as it is then. */
async function serve(adapter: Adapter, options: HttpHandlerOptions = {}, prompts = true) {
  const kit = createElicitkit();
  const tools: AnyTool[] = [named('first')];
  const sessionServers: McpServer[] = [];
  const promptNames = ['hello'];
  const errors: Error[] = [];
  const handler = createHttpHandler(
    (asks) => {
      const server = kit.createServer({ name: 'changing', version: '1' }, [...tools]);
      if (asks === 'push') sessionServers.push(server);
      if (prompts)
        for (const name of promptNames)
          server.registerPrompt(name, { description: name }, () => ({
            messages: [{ role: 'user', content: { type: 'text', text: name } }],
          }));
      return server;
    },
    { onerror: (e) => errors.push(e), ...options },
  );
  const node = createServer(listenerOf(handler, adapter));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    node.closeAllConnections();
    node.close();
  });
  const url = new URL(`http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`);
  return { url, handler, kit, tools, promptNames, sessionServers, errors };
}

/**
 * Connects `client`, resolving once it can hear what the server says outside any request: a 2025
 * session's standalone GET stream is open (what a server sends before it is, nothing carries: the
 * transport keeps no events here), a 2026-07-28 client's listen stream is acknowledged.
 */
async function connectListening(client: Client, url: URL): Promise<void> {
  let opened: () => void = () => {};
  const standalone = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const tracing: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'GET' && response.ok) opened();
    return response;
  };
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: tracing }));
  cleanup.push(() => client.close());
  if (client.getNegotiatedProtocolVersion() === '2026-07-28')
    await expect.poll(() => client.autoOpenedSubscription !== undefined).toBe(true);
  else await standalone;
}

/** An SDK client that follows list changes; `lists` gets each list it was told of and fetched. */
async function follower(url: URL, revision: '2025-11-25' | '2026-07-28') {
  const tools: string[][] = [];
  const prompts: string[][] = [];
  let heard: () => void = () => {};
  const client = new Client(
    { name: `follower-${revision}`, version: '1' },
    {
      capabilities: {},
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, list) => {
            if (!error && list) tools.push(list.map((t) => t.name).sort());
            heard();
          },
        },
        prompts: {
          debounceMs: 0,
          onChanged: (error, list) => {
            if (!error && list) prompts.push(list.map((p) => p.name).sort());
            heard();
          },
        },
      },
    },
  );
  await connectListening(client, url);
  /** Resolves once `lists` holds what `done` waits for. */
  const until = (met: () => boolean) =>
    new Promise<void>((resolve) => {
      if (met()) return resolve();
      heard = () => met() && resolve();
    });
  return { client, tools, prompts, until };
}

describe.each(ADAPTERS)('handler.notify (%s adapter)', (adapter) => {
  it('a tool added and told reaches a 2026-07-28 listen stream; a 2025 session hears it added on its server', async () => {
    const { url, handler, kit, tools, sessionServers, errors } = await serve(adapter);
    const modern = await follower(url, '2026-07-28');
    const legacy = await follower(url, '2025-11-25');
    expect((await modern.client.listTools()).tools.map((t) => t.name)).toEqual(['first']);
    expect((await legacy.client.listTools()).tools.map((t) => t.name)).toEqual(['first']);

    const second = named('second');
    tools.push(second);
    handler.notify.toolsChanged();
    await modern.until(() => modern.tools.length > 0);
    expect(modern.tools).toEqual([['first', 'second']]);
    expect((await modern.client.callTool({ name: 'second', arguments: {} })).content).toEqual([
      { type: 'text', text: 'second' },
    ]);

    // The 2025 session's own server gets the tool: the SDK tells its client.
    expect(sessionServers).toHaveLength(1);
    kit.register(sessionServers[0] as McpServer, second);
    await legacy.until(() => legacy.tools.length > 0);
    expect(legacy.tools).toEqual([['first', 'second']]);
    expect((await legacy.client.callTool({ name: 'second', arguments: {} })).content).toEqual([
      { type: 'text', text: 'second' },
    ]);
    expect(modern.tools).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('a prompt change is told as one, not as a tools change', async () => {
    const { url, handler, promptNames } = await serve(adapter);
    const modern = await follower(url, '2026-07-28');
    promptNames.push('goodbye');
    handler.notify.promptsChanged();
    await modern.until(() => modern.prompts.length > 0);
    expect(modern.prompts).toEqual([['goodbye', 'hello']]);
    // Told after it on the same stream: had the prompts change gone out as a tools one, it came first.
    handler.notify.toolsChanged();
    await modern.until(() => modern.tools.length > 0);
    expect(modern.tools).toEqual([['first']]);
    expect(modern.prompts).toHaveLength(1);
  });

  it('notify sends a 2025 session nothing (its server did not change); a change on its server is told', async () => {
    const { url, handler, kit, sessionServers, errors } = await serve(adapter);
    const seen: string[] = [];
    const client = new Client({ name: 'plain', version: '1' }, { capabilities: {} });
    client.fallbackNotificationHandler = async (n) => {
      seen.push(n.method);
    };
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      seen.push('notifications/tools/list_changed');
    });
    await connectListening(client, url);
    handler.notify.toolsChanged();
    handler.notify.promptsChanged();
    handler.notify.resourcesChanged();
    handler.notify.resourceUpdated('file:///x');
    // Told after them on the same stream: had any gone out to the session, it would have come first.
    kit.register(sessionServers[0] as McpServer, named('second'));
    await expect.poll(() => seen).toEqual(['notifications/tools/list_changed']);
    expect(errors).toEqual([]);
  });

  it("replicas sharing a bus hear each other's changes; a closed handler's clients hear no more", async () => {
    const bus = new InMemoryServerEventBus();
    const published: ServerEvent['kind'][] = [];
    let listening = 0;
    const shared = {
      publish: (event: ServerEvent) => {
        published.push(event.kind);
        bus.publish(event);
      },
      subscribe: (listener: (event: ServerEvent) => void) => {
        listening++;
        const off = bus.subscribe(listener);
        return () => {
          listening--;
          off();
        };
      },
    };
    const one = await serve(adapter, { bus: shared });
    const two = await serve(adapter, { bus: shared });
    const modern = await follower(two.url, '2026-07-28');
    expect(listening).toBe(1);
    two.tools.push(named('second'));
    // Said on the first replica, heard by the second's client.
    one.handler.notify.toolsChanged();
    await modern.until(() => modern.tools.length > 0);
    expect(modern.tools).toEqual([['first', 'second']]);
    expect(published).toEqual(['tools_list_changed']);

    // The second replica closed: its listen stream is gone from the bus.
    await two.handler.close();
    await expect.poll(() => listening).toBe(0);
    one.handler.notify.toolsChanged();
    expect(published).toEqual(['tools_list_changed', 'tools_list_changed']);
    expect(two.errors).toEqual([]);
  });
});
