import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema } from '@elicitkit/server';
import * as z from 'zod/v4';
import type { Deps } from '../context.js';
import { strings } from '../i18n.js';

const USERNAME = /^[A-Za-z0-9._-]+$/;

/**
 * register_user: a form for what may pass through the client (username, email, newsletter), then
 * URL mode for the password, which must never be asked in a form (SPEC §1 security MUSTs).
 */
export function registerUserTool({ db, lang, links, now }: Deps) {
  const t = strings(lang);
  const account = form({
    username: field.string({ title: t.usernameTitle, description: t.usernameHelp, minLength: 3, maxLength: 20 }),
    email: field.string({ title: t.emailTitle, format: 'email' }),
    newsletter: field.boolean({ title: t.newsletterTitle, default: false }),
  });
  const ownerOf = (username: string) =>
    db.prepare('SELECT registration_cid FROM users WHERE username = ?').pluck().get(username) as
      | string
      | null
      | undefined;

  return defineTool({
    name: 'register_user',
    title: 'Register a user',
    description:
      'Create an opsdesk account: the user fills in username, email and newsletter choice, then sets the password on a secure page opsdesk serves (never through the chat).',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ username: z.string(), passwordSet: z.boolean() }),
    forms: { account },
    async run(_args, ctx) {
      const answer = await ctx.ask('account', {
        message: t.registerMessage,
        check: ({ username }) => {
          if (!USERNAME.test(username)) return { field: 'username', message: t.usernameChars };
          const owner = ownerOf(username);
          // A row made by this very call (an earlier round) is ours, not a clash.
          return owner === undefined || owner === ctx.contextId
            ? []
            : { field: 'username', message: t.usernameTaken(username) };
        },
      });
      if (answer.action !== 'accept') return answer.result();
      const { username, email, newsletter } = answer.value;
      // The row is keyed by the call's context id, so later rounds of the same call find it instead of adding another.
      db.prepare(
        'INSERT OR IGNORE INTO users (username, email, newsletter, role, registration_cid, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(username, email, newsletter ? 1 : 0, 'member', ctx.contextId, now().toISOString());
      const password = await ctx.askUrl('password', {
        message: t.passwordMessage(username),
        url: links.linkFor(username, ctx.contextId),
        isComplete: () => links.isSet(username),
      });
      switch (password.action) {
        case 'accept':
          return done(t.registered(username), { username, passwordSet: true });
        case 'pending': {
          const waiting = password.result();
          return {
            ...waiting,
            structuredContent: { ...(waiting.structuredContent as object), username, passwordSet: false },
          };
        }
        default:
          return password.result();
      }
    },
  });
}
