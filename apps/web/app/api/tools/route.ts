import { configProblem } from '../../../lib/config';
import { REFUSED, requestLocale } from '../../../lib/locale';
import { listTools } from '../../../lib/mcp';
import { chatOf } from '../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The tools of every configured MCP server, with their input schemas, for the tools panel; a
 * server that does not answer is named in `unavailable`, with where it is and why (502 only when
 * none answers). A broken configuration answers 500 with what is wrong, as `GET /api/chat/info` does.
 */
export async function GET(request: Request): Promise<Response> {
  // In the page's language: the panel shows it.
  const locale = requestLocale(request);
  const problem = configProblem(undefined, locale);
  if (problem) return Response.json({ error: problem }, { status: 500 });
  const chat = await chatOf(request);
  if (!chat) return Response.json({ error: REFUSED[locale].noSession }, { status: 401 });
  try {
    return Response.json(await listTools(chat, locale), { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    // listTools names the server, where it is and why.
    return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 502 });
  }
}
