import type { UIMessage } from 'ai';
import type { ElicitationData } from '../lib/wire';

export type { ElicitationData };

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
