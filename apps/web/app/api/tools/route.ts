import { listTools } from '../../../lib/mcp';
import { chatOf } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The tools of every configured MCP server, with their input schemas, for the tools panel; a
 * server that does not answer is named in `unavailable` (502 only when none answers).
 */
export async function GET(request: Request): Promise<Response> {
  const chat = await chatOf(request);
  if (!chat) return Response.json({ error: 'No session: load the page first.' }, { status: 401 });
  try {
    return Response.json(await listTools(chat), { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return Response.json(
      { error: `Could not reach the MCP server: ${error instanceof Error ? error.message : String(error)}` },
      { status: 502 },
    );
  }
}
