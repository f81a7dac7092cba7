import { field, form } from '@elicitkit/form';
import { defineTool, done, outcomeSchema, rejected } from '@elicitkit/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { type Deps, findCaller } from '../context.js';
import { value } from '../db/query.js';
import { inEachLocale, MESSAGES } from '../messages/index.js';

const USERNAME = /^[A-Za-z0-9._-]+$/;

/**
 * register_user: a form for what may pass through the client (username, email, newsletter), then
 * URL mode for the password, which must never be asked in a form (the protocol's security MUSTs).
 *
 * Nothing is written before the last question: the account comes into existence on the password
 * page, together with its password, in one transaction (see `password-links.ts`). Until then the
 * registration is a short-lived pending record that is not a user. Declined, cancelled or timed
 * out, the link is withdrawn; abandoned, it expires. Either way the name stays free.
 */
export function registerUserTool({ store, locale, links }: Deps) {
  const formsIn = inEachLocale((t) => ({
    account: form({
      username: field.string({ title: t.usernameTitle, description: t.usernameHelp, minLength: 3, maxLength: 20 }),
      email: field.string({ title: t.emailTitle, format: 'email' }),
      newsletter: field.boolean({ title: t.newsletterTitle, default: false }),
    }),
  }));
  const registeredBy = (username: string) =>
    store.run(value<string | null>('SELECT registration_cid FROM users WHERE username = ?', username));

  return defineTool({
    name: 'register_user',
    title: 'Register a user',
    description:
      'Create an opsdesk account: the user fills in username, email and newsletter choice, then sets the password on a secure page opsdesk serves (never through the chat). The account exists only once the password is set.',
    inputSchema: z.object({}),
    outputSchema: outcomeSchema({ username: z.string(), passwordSet: z.boolean() }),
    forms: formsIn(locale),
    async run(_args, ctx) {
      const t = MESSAGES[ctx.locale];
      // Only a caller opsdesk knows registers anyone (an account removed, or an identity it never
      // had, is refused as by every other tool).
      const caller = await store.run(findCaller(ctx));
      if (!caller) return rejected(t.unknownCaller(ctx.user));
      const answer = await ctx.ask('account', {
        message: t.registerMessage,
        form: formsIn(ctx.locale).account,
        check: async ({ username }) => {
          if (!USERNAME.test(username)) return { field: 'username', message: t.usernameChars };
          const owner = await registeredBy(username);
          // An account made by this very call (its page, answered before this round) is ours, not a clash.
          return owner === undefined || owner === ctx.contextId
            ? []
            : { field: 'username', message: t.usernameTaken(username) };
        },
      });
      // On 2026-07-28 a client may send an earlier round again, answered otherwise, after this
      // call's page made its account: what the call did is reported, whatever this answer says.
      if (answer.action !== 'accept') {
        // Any link an earlier round gave out stops working, in the transaction that reads the account.
        const made = await links.withdraw(ctx.contextId);
        if (made !== undefined) return refusedAfterMade(answer.result(), t.madeBeforeRefusal(made), made);
        return answer.action === 'unsupported'
          ? cannotShow(answer.result(), t.registerUnsupported('form'))
          : answer.result();
      }
      const { username, email, newsletter } = answer.value;
      // The page's listener opens here, the first time a password question needs it (not at every start).
      await links.ready();
      const password = await ctx.askUrl('password', {
        message: t.passwordMessage(username),
        url: await links.linkFor({ username, email, newsletter, requestedBy: caller.id }, ctx.contextId),
        // The last question withdraws the link in the same step: a submit cannot land after it unseen.
        isComplete: async ({ final }) =>
          final ? (await links.withdraw(ctx.contextId)) === username : links.isRegistered(ctx.contextId, username),
      });
      switch (password.action) {
        case 'accept':
          return done(t.registered(username), { username, passwordSet: true });
        case 'pending': {
          // The page was used and found the name taken (another registration finished first): its
          // link is spent, so the page does not still work, and no account will come of this call.
          if (await links.foundTaken(ctx.contextId, username))
            return rejected(t.takenOnPage(username), { username, passwordSet: false });
          // The page still works until its link expires; the account appears when it is used. A
          // 2026-07-28 call is picked up again (its state carries this registration); a 2025 one is
          // not — another call would be another registration, and find the name held by this one.
          const waiting = password.result();
          const text = ctx.revision === '2026-07-28' ? undefined : t.registerPending(username);
          return {
            ...waiting,
            ...(text ? { content: [{ type: 'text' as const, text }] } : {}),
            structuredContent: {
              ...(waiting.structuredContent as object),
              ...(text ? { message: text } : {}),
              username,
              passwordSet: false,
            },
          };
        }
        default:
          // Declined, cancelled, timed out or not askable: the link stops working (the kit's last
          // isComplete withdrew it already where the link was shown), no account, the name stays free.
          await links.withdraw(ctx.contextId);
          return password.action === 'unsupported'
            ? cannotShow(password.result(), t.registerUnsupported('page'))
            : password.result();
      }
    },
  });
}

/**
 * The kit's result for a person's no, telling what the call did before it: its page made account
 * `username`. The status stays the person's (nothing is done after a no); the account is reported.
 */
function refusedAfterMade(result: CallToolResult, text: string, username: string): CallToolResult {
  return {
    ...result,
    content: [{ type: 'text', text }],
    structuredContent: { ...(result.structuredContent as object), message: text, username, passwordSet: true },
  };
}

/**
 * The kit's `unsupported` result in register_user's own words. The kit's asks the model to collect
 * the missing values and call again with them — but register_user takes no arguments (the password
 * never passes through chat), so that call would end the same way, the person asked again for nothing.
 */
function cannotShow(result: CallToolResult, text: string): CallToolResult {
  return {
    ...result,
    content: [{ type: 'text', text }],
    structuredContent: { ...(result.structuredContent as object), message: text, missing: [] },
  };
}
