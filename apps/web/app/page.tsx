import { headers } from 'next/headers';
import { ChatPage } from '../components/chat-page';
import { localeFromHeader } from '../lib/locale';

export const dynamic = 'force-dynamic';

export default async function Page() {
  // A first guess from Accept-Language; the page then follows the person's saved choice.
  const initialLocale = localeFromHeader((await headers()).get('accept-language'));
  return <ChatPage initialLocale={initialLocale} />;
}
