import type { Prompt } from '@elicitkit/client';

/**
 * What a `data-elicitation` part of the chat stream carries: one question as the browser sees it,
 * sent again with a new status when it settles. Shared by the server (lib/) and the page
 * (components/); types only, so the page bundles nothing from the server side.
 */
export interface ElicitationData {
  id: string;
  server: string;
  status: 'open' | 'answered' | 'expired' | 'withdrawn';
  action?: 'accept' | 'decline' | 'cancel';
  prompt: Prompt;
  /** Epoch ms the server handed the question to the page, and when it stops waiting. */
  publishedAt: number;
  expiresAt: number;
}
