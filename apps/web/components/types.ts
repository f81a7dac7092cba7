import type { Prompt } from '@elicitkit/client';
import type { UIMessage } from 'ai';

/** Mirrors lib/state.ts ElicitationData: what a `data-elicitation` part carries. */
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

export type ChatMessage = UIMessage<never, { elicitation: ElicitationData }>;

export interface SessionInfo {
  csrf: string;
  lang: 'en' | 'zh';
  servers: string[];
  model: string | null;
}

export interface ToolInfo {
  server: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: {
    properties?: Record<string, { type?: string; enum?: string[]; description?: string }>;
    required?: string[];
  };
}
