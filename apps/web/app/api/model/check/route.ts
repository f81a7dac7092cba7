import { config } from '../../../../lib/config';
import { requestLocale } from '../../../../lib/locale';
import { checkModel } from '../../../../lib/model-check';
import { chatOf } from '../../../../lib/state';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * "Test connection": one tiny request to the model endpoint, reported as the chat would explain
 * a failure. A POST with the chat's CSRF token, so another site cannot make the app call out.
 */
export async function POST(request: Request): Promise<Response> {
  const chat = await chatOf(request);
  if (!chat) return Response.json({ error: 'No session: load the page first.' }, { status: 401 });
  if (request.headers.get('x-elicitkit-csrf') !== chat.csrf)
    return Response.json({ error: 'Missing or wrong CSRF token.' }, { status: 403 });
  const result = await checkModel(config().model, requestLocale(request));
  return Response.json(result, { headers: { 'cache-control': 'no-store' } });
}
