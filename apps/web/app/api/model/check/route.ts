import { config } from '../../../../lib/config';
import { guardedChat } from '../../../../lib/guard';
import { requestLocale } from '../../../../lib/locale';
import { checkModel } from '../../../../lib/model-check';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * "Test connection": one tiny request to the model endpoint, reported as the chat would explain
 * a failure. A POST with the chat's CSRF token, so another site cannot make the app call out.
 */
export async function POST(request: Request): Promise<Response> {
  const { refused } = await guardedChat(request);
  if (refused) return refused;
  const result = await checkModel(config().model, requestLocale(request));
  return Response.json(result, { headers: { 'cache-control': 'no-store' } });
}
