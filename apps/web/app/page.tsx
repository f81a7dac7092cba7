import { ChatPage } from '../components/chat-page';

export const dynamic = 'force-dynamic';

export default function Page() {
  return <ChatPage />;
}
