import { requestLocale } from '../../../lib/locale';
import { listTools } from '../../../lib/mcp';
import { chatOf, closeChat } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The tools of every configured MCP server, with their input schemas, for the tools panel. */
export async function GET(request: Request): Promise<Response> {
  const chat = chatOf(request);
  if (!chat) return Response.json({ error: 'No session: load the page first.' }, { status: 401 });
  const locale = requestLocale(request);
  if (chat.lang !== locale && !chat.writer) {
    // Titles and descriptions come from the bundled opsdesk in the page's language.
    chat.lang = locale;
    await closeChat(chat);
  }
  try {
    return Response.json({ tools: await listTools(chat) }, { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return Response.json(
      { error: `Could not reach the MCP server: ${error instanceof Error ? error.message : String(error)}` },
      { status: 502 },
    );
  }
}
