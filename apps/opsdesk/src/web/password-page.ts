import type { Locale, LocaleTables } from '@elicitkit/server';

export type PageKind =
  | 'form'
  | 'done'
  | 'used'
  | 'expired'
  | 'invalid'
  | 'revoked'
  | 'forbidden'
  | 'taken'
  | 'made'
  | 'failed'
  | 'unsure';

/** What the password page says, one table per locale. */
interface PageMessages {
  /** The page's `lang` attribute. */
  htmlLang: string;
  title: string;
  intro(username: string): string;
  password: string;
  confirm: string;
  submit: string;
  /** The rules, shown before anything is typed. */
  rules: string;
  length: string;
  mismatch: string;
  done(username: string): string;
  used: string;
  expired: string;
  taken(username: string): string;
  /** The registration already made its account, under another answer of the same call. */
  made(username: string): string;
  invalid: string;
  /** The account that asked for the registration is gone (removed since): the link makes nothing. */
  revoked: string;
  forbidden: string;
  /** The account could not be written (the database refused): nothing was made, the link still works. */
  failed: string;
  /** The account was sent to be saved and the database did not say whether it was. */
  unsure: string;
}

const TEXT = {
  en: {
    htmlLang: 'en',
    title: 'Set your opsdesk password',
    intro: (u) =>
      `Choose the password for <b>${u}</b>. It is sent only to opsdesk, never to your chat client or the model.`,
    password: 'New password',
    confirm: 'Repeat it',
    submit: 'Set password',
    rules: 'At least 10 characters (at most 256); type it twice.',
    length: 'Use at least 10 characters.',
    mismatch: 'The two passwords differ.',
    done: (u) => `The password for <b>${u}</b> is set. You can close this tab and return to your chat.`,
    used: 'This link has already been used. Ask opsdesk for a new one if you need it.',
    expired: 'This link has expired. Run the registration again to get a new one.',
    taken: (u) =>
      `The username <b>${u}</b> was taken while this page was open. No account was created; run the registration again with another name.`,
    made: (u) =>
      `This registration already created the account <b>${u}</b>, from an earlier answer. No other account was created.`,
    invalid: 'This link is not valid.',
    revoked:
      'The opsdesk account that asked for this registration no longer exists, so this link no longer works. No account was created.',
    forbidden: 'This request was refused.',
    failed: 'The password could not be saved. No account was created; this link still works, so try again in a moment.',
    unsure:
      'The account was sent to be saved, and the connection to the database was lost before it answered, so whether it was created cannot be told yet. Open this link again in a moment: it says the link was used if the account was created, and otherwise lets you try again.',
  },
  zh: {
    htmlLang: 'zh-CN',
    title: '设置 opsdesk 密码',
    intro: (u) => `为 <b>${u}</b> 设置密码。密码只发送给 opsdesk，不会经过聊天客户端或模型。`,
    password: '新密码',
    confirm: '再输入一次',
    submit: '设置密码',
    rules: '至少 10 个字符（最多 256 个），需输入两次。',
    length: '密码至少 10 个字符。',
    mismatch: '两次输入的密码不一致。',
    done: (u) => `<b>${u}</b> 的密码已设置。可以关闭此页面，回到聊天窗口。`,
    used: '此链接已被使用。如有需要，请让 opsdesk 重新生成。',
    expired: '此链接已过期。请重新运行注册以获取新链接。',
    taken: (u) => `在此页面打开期间，用户名 <b>${u}</b> 已被占用。没有创建任何账号；请换一个用户名重新注册。`,
    made: (u) => `此次注册已根据之前的回答创建了账号 <b>${u}</b>，没有再创建其他账号。`,
    invalid: '此链接无效。',
    revoked: '发起此注册的 opsdesk 账号已不存在，因此此链接已失效。未创建任何账号。',
    forbidden: '请求被拒绝。',
    failed: '密码未能保存，没有创建任何账号。此链接仍然有效，请稍后重试。',
    unsure:
      '账号已提交保存，但在数据库答复之前连接断开了，因此暂时无法确定账号是否已创建。请稍后重新打开此链接：若账号已创建，页面会说明链接已被使用；否则可以再试一次。',
  },
} satisfies LocaleTables<PageMessages>;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  // Not `no-referrer`: under it browsers send `Origin: null` with the form's POST, which the origin
  // check must refuse. `same-origin` keeps the token-bearing path from leaving the page's origin.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The password page and its outcomes: a plain form, no scripts, nothing loaded from elsewhere. */
export function page(
  locale: Locale,
  kind: PageKind,
  status: number,
  data: { username?: string; csrf?: string; error?: 'length' | 'mismatch' } = {},
): Response {
  const t = TEXT[locale];
  const user = html(data.username ?? '');
  let body: string;
  if (kind === 'form') {
    const error = data.error ? `<p class="error" role="alert">${t[data.error]}</p>` : '';
    body = `<p>${t.intro(user)}</p><p id="rules" class="rules">${t.rules}</p>${error}
<form method="post" autocomplete="off">
  <input type="hidden" name="csrf" value="${html(data.csrf ?? '')}">
  <input type="text" name="username" value="${user}" autocomplete="username" hidden>
  <label>${t.password}<input type="password" name="password" autocomplete="new-password" minlength="10" maxlength="256" aria-describedby="rules" required autofocus></label>
  <label>${t.confirm}<input type="password" name="confirm" autocomplete="new-password" minlength="10" maxlength="256" aria-describedby="rules" required></label>
  <button type="submit">${t.submit}</button>
</form>`;
  } else if (kind === 'done' || kind === 'taken' || kind === 'made') {
    body = `<p>${t[kind](user)}</p>`;
  } else {
    body = `<p>${t[kind]}</p>`;
  }
  const document = `<!doctype html><html lang="${t.htmlLang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${t.title}</title>
<style>body{font:16px/1.5 system-ui,"PingFang SC","Microsoft YaHei",sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}input{background:#161b22;color:inherit;border-color:#30363d}}
[hidden]{display:none!important}label{display:block;margin:1rem 0}input{display:block;width:100%;padding:.5rem;margin-top:.25rem;border:1px solid #d0d7de;border-radius:6px;font:inherit}
button{padding:.5rem 1rem;border-radius:6px;border:0;background:#1f6feb;color:#fff;font:inherit;cursor:pointer}.error{color:#cf222e}</style></head>
<body><h1>${t.title}</h1>${body}</body></html>`;
  return new Response(document, { status, headers: HEADERS });
}
