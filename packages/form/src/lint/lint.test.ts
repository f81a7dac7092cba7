import { describe, expect, it } from 'vitest';
import type { FieldSchema } from '../wire.js';
import type { LintContext } from './identifiers.js';
import { hasErrors, lint, lintForm } from './index.js';
import { messageFindings } from './message.js';
import { RULES, type RuleCode } from './rules.js';

const MESSAGE = 'Which environment should order-service be deployed to?';

function formRequest(properties: Record<string, unknown>, message = MESSAGE, required?: string[]) {
  return { mode: 'form', message, requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) } };
}
function rules(request: unknown): RuleCode[] {
  return [...new Set(lint(request).map((f) => f.rule))].sort();
}
const titled: FieldSchema = { type: 'string', title: 'Environment', oneOf: [{ const: 'dev', title: 'Development' }] };

describe('lint: a clean request', () => {
  it('has no findings', () => {
    expect(lint(formRequest({ env: titled }, MESSAGE, ['env']))).toEqual([]);
  });

  it('every finding carries rule, severity, message and fix', () => {
    for (const f of lint(formRequest({ password: { type: 'string' } }, 'x'))) {
      expect(f.severity).toBe(RULES[f.rule].severity);
      expect(f.message.length).toBeGreaterThan(5);
      expect(f.fix.length).toBeGreaterThan(5);
    }
  });
});

describe('EK02 empty form', () => {
  it('fires on no properties', () => {
    expect(rules(formRequest({}))).toEqual(['EK02']);
    expect(rules({ message: MESSAGE, requestedSchema: { type: 'object' } })).toEqual(['EK02']);
  });
  it('does not fire with a field', () => expect(rules(formRequest({ env: titled }))).not.toContain('EK02'));
});

describe('EK03 outside the subset', () => {
  it.each([
    ['nested object', { addr: { type: 'object', title: 'A', properties: { c: { type: 'string' } } } }],
    ['array of strings', { tags: { type: 'array', title: 'T', items: { type: 'string' } } }],
    ['$ref', { a: { $ref: '#/x' } }],
    ['pattern', { code: { type: 'string', title: 'Code', pattern: '^[A-Z]+$' } }],
    ['anyOf on a string', { a: { type: 'string', title: 'A', anyOf: [{ const: 'x' }] } }],
    ['unknown keyword', { a: { type: 'string', title: 'A', examples: ['x'] } }],
    ['null type', { a: { type: 'null', title: 'A' } }],
  ])('fires on %s', (_label, properties) => {
    const found = lint(formRequest(properties));
    expect(found.map((f) => f.rule)).toContain('EK03');
    expect(found.find((f) => f.rule === 'EK03')?.field).toBe(Object.keys(properties)[0]);
  });
  it('fires on a missing schema and a non-object request', () => {
    expect(rules({ message: MESSAGE })).toEqual(['EK03']);
    expect(rules('elicit me')).toEqual(['EK03']);
  });
  it('does not fire on every allowed shape', () => {
    const all = formRequest({
      s: { type: 'string', title: 'S', minLength: 1, maxLength: 9, format: 'email', default: 'a@b.co' },
      n: { type: 'number', title: 'N', minimum: 0, maximum: 9, default: 1 },
      b: { type: 'boolean', title: 'B', default: false },
      e: titled,
      l: { type: 'string', title: 'L', enum: ['a'], enumNames: ['A'] },
      m: { type: 'array', title: 'M', items: { anyOf: [{ const: 'a', title: 'A' }] }, maxItems: 1 },
    });
    expect(lint(all)).toEqual([]);
  });
  it.each([
    ['a field name', { 'env\ud800': titled }, 'env\ud800', 'the field name'],
    [
      'a select choice',
      { env: { type: 'string', title: 'E', oneOf: [{ const: 'prod\udc00', title: 'Prod' }] } },
      'env',
      'a choice',
    ],
    [
      'an enum value',
      { env: { type: 'string', title: 'E', enum: ['dev', '\udc00'], enumNames: ['D', 'X'] } },
      'env',
      'a choice',
    ],
    [
      'a multi-select choice',
      { m: { type: 'array', title: 'M', items: { anyOf: [{ const: 'a\ud83d', title: 'A' }] } } },
      'm',
      'a choice',
    ],
  ])('fires on half of a character in %s: no answer can carry it', (_label, properties, field, what) => {
    const found = lint(formRequest(properties)).filter((f) => f.rule === 'EK03');
    expect(found).toHaveLength(1);
    expect(found[0]?.field).toBe(field);
    expect(found[0]?.message).toContain(`${what} holds half of a character`);
    expect(lintForm(formRequest(properties).requestedSchema).map((f) => f.rule)).toContain('EK03');
  });
  it('does not fire on half of a character in a title or help (only read), nor on a whole pair', () => {
    const found = lint(
      formRequest({
        env: {
          type: 'string',
          title: 'E\ud800',
          description: 'd\udc00',
          oneOf: [{ const: 'ok\ud83d\ude00', title: 'P\ud800' }],
        },
      }),
    );
    expect(found.map((f) => f.rule)).not.toContain('EK03');
  });
  it('still lints the valid fields next to an invalid one', () => {
    expect(rules(formRequest({ addr: { type: 'object' }, password: { type: 'string', title: 'Password' } }))).toEqual([
      'EK03',
      'EK09',
    ]);
  });
});

describe('EK06 confirmation that defaults to yes', () => {
  it.each([
    ['confirmed', { type: 'boolean', title: 'I confirm the release', default: true }],
    ['understood', { type: 'boolean', title: 'Understood', default: true }],
    ['ok', { type: 'boolean', title: '我确认已检查过变更内容', default: true }],
  ])('fires on %s with default: true', (name, field) => {
    const found = lint(formRequest({ [name]: field, ticket: { type: 'string', title: 'Ticket' } }));
    expect(found.filter((f) => f.rule === 'EK06').map((f) => [f.field, f.severity])).toEqual([[name, 'error']]);
  });
  it('does not fire on default: false, no default, or a non-confirmation boolean defaulting to true', () => {
    expect(rules(formRequest({ confirmed: { type: 'boolean', title: 'I confirm', default: false } }))).not.toContain(
      'EK06',
    );
    expect(rules(formRequest({ confirmed: { type: 'boolean', title: 'I confirm' } }))).not.toContain('EK06');
    expect(rules(formRequest({ darkMode: { type: 'boolean', title: 'Dark mode', default: true } }))).not.toContain(
      'EK06',
    );
  });
});

describe('EK07 untitled fields and options', () => {
  it('fires on a field without title', () => {
    const found = lint(formRequest({ env: { type: 'string', oneOf: [{ const: 'dev', title: 'Dev' }] } }));
    expect(found.map((f) => [f.rule, f.field, f.severity])).toEqual([['EK07', 'env', 'warning']]);
  });
  it('fires on options without display titles (untitled enum, untitled multi-select)', () => {
    expect(rules(formRequest({ env: { type: 'string', title: 'Env', enum: ['dev', 'prod'] } }))).toEqual(['EK07']);
    expect(rules(formRequest({ t: { type: 'array', title: 'T', items: { type: 'string', enum: ['a'] } } }))).toEqual([
      'EK07',
    ]);
  });
  it('does not fire on titled fields and titled options (legacy enumNames included)', () => {
    expect(
      rules(formRequest({ env: titled, l: { type: 'string', title: 'L', enum: ['a'], enumNames: ['A'] } })),
    ).toEqual([]);
  });
});

describe('EK09 secrets in a form', () => {
  it.each([
    ['password', { type: 'string' }],
    ['apiKey', { type: 'string', title: 'Key' }],
    ['api_key', { type: 'string', title: 'Key' }],
    ['githubToken', { type: 'string', title: 'GitHub' }],
    ['accesstoken', { type: 'string', title: 'Access' }],
    ['card', { type: 'string', title: 'Card number' }],
    ['cvv', { type: 'integer', title: 'CVV' }],
    ['pwd', { type: 'string', title: '密码' }],
    ['p', { type: 'string', title: '登录密码' }],
    ['k', { type: 'string', title: '访问密钥' }],
    ['k2', { type: 'string', title: '口令' }],
    ['k3', { type: 'string', title: '令牌' }],
    ['phrase', { type: 'string', title: 'Passphrase' }],
    ['secret', { type: 'string', title: 'Client secret' }],
    ['value', { type: 'string', title: 'Value', description: 'Your OpenAI API key (starts with sk-)' }],
    ['header', { type: 'string', title: 'Authorization header' }],
    ['auth', { type: 'string', title: 'Auth', description: 'The Bearer value the billing API expects' }],
    ['ssn', { type: 'string', title: 'SSN' }],
    ['social', { type: 'string', title: 'Social security number' }],
    ['cookie', { type: 'string', title: 'Session cookie' }],
    ['adminSessionCookie', { type: 'string', title: 'Admin' }],
    ['pat', { type: 'string', title: 'GitHub PAT' }],
    ['signingKey', { type: 'string', title: 'Private key' }],
    ['de', { type: 'string', title: 'Passwort' }],
    ['de2', { type: 'string', title: 'Datenbank-Kennwort' }],
    ['datenbankpasswort', { type: 'string', title: 'Datenbank' }],
    ['fr', { type: 'string', title: 'Mot de passe' }],
    ['es', { type: 'string', title: 'Contraseña' }],
    ['pt', { type: 'string', title: 'Senha' }],
    ['nl', { type: 'string', title: 'Wachtwoord' }],
    ['ja', { type: 'string', title: 'パスワード' }],
    ['ja2', { type: 'integer', title: '暗証番号' }],
    ['ko', { type: 'string', title: '비밀번호' }],
    ['ru', { type: 'string', title: 'Пароль' }],
    ['ru2', { type: 'string', title: 'Код', description: 'Введите пароля от консоли' }],
    ['reply', { type: 'string', title: 'Reply', description: 'Paste the bearer value, not your user name' }],
    ['keyed', { type: 'string', title: 'Value', description: 'Your API key, from https://example.com/settings/keys' }],
    ['pw', { type: 'string' }],
    ['pass', { type: 'string' }],
    ['Pass', { type: 'string', title: 'Your value' }],
  ])('fires on %s', (name, field) => {
    const found = lint(formRequest({ [name]: field }));
    expect(found.filter((f) => f.rule === 'EK09').map((f) => [f.field, f.severity])).toEqual([[name, 'error']]);
    expect(hasErrors(found)).toBe(true);
  });
  it.each([
    ['ticket', { type: 'string', title: 'Release ticket' }],
    ['username', { type: 'string', title: 'Username' }],
    ['maxTokens', { type: 'integer', title: 'Max tokens' }],
    ['email', { type: 'string', title: '邮箱', format: 'email' }],
    ['secretary', { type: 'string', title: 'Secretary' }],
    ['rememberPassword', { type: 'boolean', title: 'Remember password' }],
    ['typedTableName', { type: 'string', title: 'Type the table name' }],
    ['assignee', { type: 'string', title: 'Assignee', description: 'Who takes it over, e.g. Pat or Sam' }],
    ['maxOutput', { type: 'integer', title: 'Output length', description: 'How many tokens the model may write' }],
    ['expat', { type: 'string', title: 'Expat status' }],
    ['acceptCookies', { type: 'boolean', title: 'Accept cookies' }],
    ['boardingPass', { type: 'string', title: 'Boarding pass number' }],
    ['passage', { type: 'string', title: 'Passage' }],
    [
      // @modelcontextprotocol/server-everything's trigger-elicitation-request: a warning, not a question.
      'integer',
      {
        type: 'integer',
        title: 'Integer',
        description: 'Your favorite integer (do not give us your phone number, pin, or other sensitive info)',
      },
    ],
    [
      'note',
      {
        type: 'string',
        title: 'Note',
        description: "Anything the reviewer should know. Don't paste a token or a password here.",
      },
    ],
    // A place named in the description is not what to type: a path or a URL holding the word.
    [
      'path',
      { type: 'string', title: 'File', description: 'A file to check, e.g. <file:///etc/passwd> or ~/.config/tokens' },
    ],
    ['docs', { type: 'string', title: 'Site', description: 'See https://example.com/reset-password for the format' }],
  ])('does not fire on %s', (name, field) => {
    expect(rules(formRequest({ [name]: field }))).not.toContain('EK09');
  });

  it('reads the message into a field that names nothing, never into one labelled for something of its own', () => {
    const ek09 = (properties: Record<string, unknown>, message: string) =>
      lint(formRequest(properties, message))
        .filter((f) => f.rule === 'EK09')
        .map((f) => f.field);
    const message = 'Paste your OpenAI API key to continue with the import of order-service data.';
    expect(ek09({ value: { type: 'string', title: 'Value' } }, message)).toEqual(['value']);
    expect(ek09({ v: { type: 'string', title: 'Your value' } }, 'コンソールのパスワードを入力してください。')).toEqual([
      'v',
    ]);
    expect(ek09({ input: { type: 'integer', title: '值' } }, '请输入银行卡的密码。')).toEqual(['input']);
    // Once per field, though the field's own title names a secret too.
    expect(ek09({ value: { type: 'string', title: 'Token' } }, message)).toEqual(['value']);
    // opsdesk's register_user: the password is mentioned, and asked for elsewhere.
    const account = {
      username: { type: 'string', title: 'Username' },
      email: { type: 'string', title: 'Email', format: 'email' },
      newsletter: { type: 'boolean', title: 'Newsletter', default: false },
      plan: { type: 'string', title: 'Plan', oneOf: [{ const: 'a', title: 'A' }] },
    };
    const opsdesk = 'Create your opsdesk account. You will set the password on a secure page next, never in this form.';
    expect(ek09(account, opsdesk)).toEqual([]);
    // A choice is picked, never typed: no secret goes into it.
    expect(ek09({ value: { type: 'string', title: 'Value', oneOf: [{ const: 'a', title: 'A' }] } }, message)).toEqual(
      [],
    );
    expect(ek09({ ...account, value: { type: 'string', title: 'Value' } }, opsdesk)).toEqual(['value']);
    expect(
      ek09({ value: { type: 'string', title: 'Value' } }, 'Name the export. Never paste an API key here.'),
    ).toEqual([]);
    // A box labelled by one character, or by where and how to type, names nothing either.
    const password = 'Enter your GitHub password to continue.';
    expect(ek09({ v: { type: 'string' } }, password)).toEqual(['v']);
    expect(ek09({ v: { type: 'string', title: 'Type here' } }, password)).toEqual(['v']);
    expect(ek09({ v: { type: 'string', title: 'Enter it here, please' } }, password)).toEqual(['v']);
    expect(ek09({ v: { type: 'string', title: 'Type the repository name' } }, password)).toEqual([]);
  });
});

describe('EK10 destructive action behind a checkbox alone', () => {
  const confirm = { type: 'boolean', title: 'I understand', default: false };
  it('fires when the only safeguard is a checkbox', () => {
    const found = lint(formRequest({ understood: confirm }, 'This will DROP TABLE orders and cannot be undone.'));
    expect(found.map((f) => [f.rule, f.severity])).toEqual([['EK10', 'warning']]);
    expect(
      rules(
        formRequest({ ok: { type: 'boolean', title: '我已知晓', default: false } }, '将删除 orders 表中的全部数据。'),
      ),
    ).toEqual(['EK10']);
  });
  it('does not fire with a typed confirmation, or for harmless actions', () => {
    expect(
      rules(
        formRequest(
          { understood: confirm, typedTableName: { type: 'string', title: 'Type the table name' } },
          'This will DROP TABLE orders.',
        ),
      ),
    ).toEqual([]);
    expect(rules(formRequest({ understood: confirm }, 'Send the weekly report to the team now?'))).toEqual([]);
  });
});

describe('EK11 message not self-explanatory', () => {
  it.each([
    ['empty', ''],
    ['very short', 'Env?'],
    ['generic', 'Please provide the value.'],
    ['generic zh', '请输入参数'],
    ['internal identifier', 'Set deploy_env_id for this run'],
    ['camelCase identifier', 'Provide releaseTicketId to continue the deployment'],
    ['camelCase identifier that starts like a product name', 'Provide xPosValue to place the widget on the dashboard'],
    ['two-word camelCase identifier', 'Set buildOS before the release of order-service goes out'],
    ['template leftover', 'Deploy undefined to production?'],
    ['object leftover', 'Deploy [object Object] to production?'],
  ])('fires on %s', (_label, message) => {
    expect(lint(formRequest({ env: titled }, message)).map((f) => [f.rule, f.severity])).toContainEqual([
      'EK11',
      'warning',
    ]);
  });
  it('fires when the message is missing', () => {
    expect(rules({ requestedSchema: { type: 'object', properties: { env: titled } } })).toEqual(['EK11']);
  });
  it.each([
    ['english', MESSAGE],
    ['chinese', '要把「order-service」部署到哪个环境？'],
    ['quoted identifier', 'Type the table name `order_items` to confirm the deletion.'],
    ['apostrophes', "We couldn't find a release ticket for order-service; which one should be used?"],
    [
      'product names in camel case',
      'Which build should go to the iPhone, iPad and macOS apps (iOS 18, iPadOS, eBay listing)?',
    ],
  ])('does not fire on %s', (_label, message) => {
    expect(rules(formRequest({ env: titled }, message))).toEqual([]);
  });
});

describe('EK11 names the person gave, names the form uses', () => {
  /** The EK11 finding texts for one message, asked with `properties`. */
  const ek11 = (message: string, context?: LintContext, properties: Record<string, unknown> = { env: titled }) =>
    lint(formRequest(properties, message), context)
      .filter((f) => f.rule === 'EK11')
      .map((f) => f.message);
  const typed = { typedTableName: { type: 'string', title: 'Table name' } };
  const regions = { region: { type: 'string', title: 'Region', oneOf: [{ const: 'us_east_1', title: 'US East' }] } };

  it('a word the call supplied is not flagged, quoted or not', () => {
    const message = 'Type order_items to confirm deleting every row of `order_items`.';
    expect(ek11(message)).toEqual(['the message shows the internal identifier "order_items"']);
    expect(ek11(message, { given: ['DELETE FROM order_items'] })).toEqual([]);
  });

  it('a given word matches in any case, anywhere inside a given string', () => {
    expect(
      ek11('Type order_items to confirm the deletion.', { given: ['delete from ORDER_ITEMS where id = 3'] }),
    ).toEqual([]);
    expect(ek11('Type order_items to confirm the deletion.', { given: ['orders', 'items'] })).toEqual([
      'the message shows the internal identifier "order_items"',
    ]);
  });

  it('an unquoted name nobody gave is still flagged beside a given one', () => {
    expect(ek11('Set deploy_env_id before touching order_items.', { given: ['DELETE FROM order_items'] })).toEqual([
      'the message shows the internal identifier "deploy_env_id"',
    ]);
  });

  it.each([
    ['quoted in backticks', 'Type the table name into `typedTableName` to confirm the deletion.'],
    ['in double quotes', 'Type the table name into "typedTableName" to confirm the deletion.'],
    ['unquoted', 'Type the table name into typedTableName to confirm the deletion.'],
  ])('a field key is flagged %s', (_label, message) => {
    expect(ek11(message, {}, typed)).toEqual([
      'the message shows "typedTableName", the form\'s own name for a field or option',
    ]);
  });

  it('an option value is flagged even quoted; the same name is fine where the form does not use it', () => {
    const message = 'Deploy order-service to "us_east_1" now?';
    expect(ek11(message, {}, regions)).toEqual([
      'the message shows "us_east_1", the form\'s own name for a field or option',
    ]);
    expect(ek11(message)).toEqual([]);
  });

  it('a form name the person gave is theirs too', () => {
    expect(ek11('Deploy order-service to "us_east_1" now?', { given: ['us_east_1'] }, regions)).toEqual([]);
  });

  it('a field key that is a plain word is not an identifier', () => {
    expect(ek11('Which env should order-service be deployed to?')).toEqual([]);
  });

  it.each([
    ['a double-backtick span holding backticks', 'Run ``SELECT order_id FROM `orders` `` to check the rows first.'],
    ['a triple-backtick span', 'The column ```order_id``` is what the report groups by.'],
  ])('quotes %s', (_label, message) => {
    expect(ek11(message)).toEqual([]);
  });

  it.each([
    ['an unclosed double backtick', 'Run ``SELECT order_id to check the rows first.'],
    ['runs of different lengths', 'Type ``order_id` to confirm the deletion of the rows.'],
  ])('does not quote %s', (_label, message) => {
    expect(ek11(message)).toEqual(['the message shows the internal identifier "order_id"']);
  });

  it('a UUID from the arguments is fine, in any case; one nobody gave is not', () => {
    const message = 'Roll back deployment 6F1C2A4B-1D2E-4F30-9A8B-7C6D5E4F3A2B of order-service now?';
    expect(ek11(message, { given: ['rollback 6f1c2a4b-1d2e-4f30-9a8b-7c6d5e4f3a2b'] })).toEqual([]);
    expect(ek11(message, { given: ['order-service'] })).toEqual([
      'the message shows the internal identifier "6F1C2A4B-1D2E-4F30-9A8B-7C6D5E4F3A2B"',
    ]);
  });

  it('a URL-mode message may show a given word', () => {
    const request = { mode: 'url', message: 'Open the page to restore order_items.', url: 'https://example.com/r' };
    expect(rules(request)).toEqual(['EK11']);
    expect(lint(request, { given: ['order_items'] })).toEqual([]);
  });

  it('without a context, a message is judged as before: unquoted names flagged, quoted ones fine', () => {
    expect(messageFindings('Type `typedTableName` to confirm the deletion of the rows.')).toEqual([]);
    expect(messageFindings('Type typedTableName to confirm the deletion of the rows.').map((f) => f.message)).toEqual([
      'the message shows the internal identifier "typedTableName"',
    ]);
    const request = formRequest({ env: titled }, 'Set deploy_env_id for this run, then `order_items` is next.');
    expect(lint(request)).toEqual(lint(request, {}));
    expect(lint(request, { given: [] }).map((f) => f.message)).toEqual([
      'the message shows the internal identifier "deploy_env_id"',
    ]);
  });
});

describe('EK14 URL mode', () => {
  const url = (u: unknown) => ({
    mode: 'url',
    message: 'Set your password on the secure page.',
    url: u,
    elicitationId: 'e1',
  });
  it.each([
    ['http on a remote host', 'http://example.com/set-password'],
    ['credentials in the URL', 'https://user:pw@example.com/x'],
    ['token in the query', 'https://example.com/cb?token=abc'],
    ['api key in the query', 'https://example.com/cb?api_key=abc'],
    ['access token in the fragment', 'https://example.com/cb#access_token=abc'],
    ['a JWT in any parameter', 'https://example.com/cb?x=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc'],
    ['GitLab private_token', 'https://gitlab.example.com/-/connect?private_token=abc'],
    ['api_token', 'https://billing.example.com/connect?api_token=abc'],
    ['oauth_token', 'https://x.example.com/authorize?oauth_token=Z6eEdO8MOmk394WozF5o'],
    ['githubToken in camel case', 'https://ci.example.com/link?githubToken=abc'],
    ['a dotted name', 'https://example.com/cb?app.secret=abc'],
    ['x-api-key', 'https://example.com/cb?x-api-key=abc'],
    ['a signature by its short name', 'https://example.com/cb?url_sig=abc'],
    ['a GitLab token under any name', 'https://gitlab.example.com/-/connect?ref=glpat-Abc123Def456Ghi789'],
    ['a GitHub token under any name', 'https://ci.example.com/link?t=ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['a fine-grained GitHub token', 'https://ci.example.com/link?v=github_pat_11ABCDEFG0abc'],
    ['a Stripe live key under any name', 'https://billing.example.com/connect?k=sk_live_51HxYz'],
    ['a Stripe test key in the fragment', 'https://billing.example.com/connect#k=sk_test_51HxYz'],
    ['a Slack bot token', 'https://example.com/cb?v=xoxb-1234-5678-abcdef'],
    ['a Slack user token', 'https://example.com/cb?v=xoxp-1234-5678-abcdef'],
    ['an AWS access key id', 'https://example.com/cb?id=AKIAIOSFODNN7EXAMPLE'],
    ['an OpenAI project key', 'https://example.com/cb?v=sk-proj-abcdefghijklmnopqrstuvwx'],
    ['javascript scheme', 'javascript:alert(1)'],
    ['not a URL', 'set-password'],
    ['missing', undefined],
  ])('fires on %s', (_label, u) => {
    expect(lint(url(u)).map((f) => [f.rule, f.severity])).toContainEqual(['EK14', 'error']);
  });
  it.each([
    ['https', 'https://opsdesk.example.com/register/6f1c2a'],
    ['http on localhost', 'http://localhost:7777/register/6f1c2a'],
    ['http on 127.0.0.1', 'http://127.0.0.1:7777/register/6f1c2a'],
    ['http on [::1]', 'http://[::1]:7777/register/6f1c2a'],
    [
      'an OAuth state nonce',
      'https://github.com/login/oauth/authorize?client_id=abc&state=9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    ],
    ['an OAuth code', 'https://example.com/cb?code=4f2a9c&state=9f8e7d6c'],
    ['ordinary parameters', 'https://opsdesk.example.com/report?from=2026-03-01&page=2&sort_key=date&lang=en'],
    ['a pagination cursor', 'https://example.com/list?pageToken=CAUQAA&NextToken=abc&continuation_token=x'],
    ['a count of tokens', 'https://example.com/usage?max_tokens=512&tokenizer=cl100k'],
    [
      'a value that only resembles a prefix',
      'https://example.com/cb?q=ghost_town&name=sk-8&sku=sk-winter-collection-2026-blue&id=AKIA',
    ],
  ])('does not fire on %s', (_label, u) => {
    expect(rules(url(u))).toEqual([]);
  });
});

describe('EK15 defaults that break their own field', () => {
  it.each([
    ['enum default not in options', { type: 'string', title: 'E', enum: ['a'], enumNames: ['A'], default: 'b' }],
    ['number out of bounds', { type: 'number', title: 'N', maximum: 3, default: 4 }],
    ['integer default not whole', { type: 'integer', title: 'N', default: 1.5 }],
    ['bad email default', { type: 'string', title: 'E', format: 'email', default: 'nope' }],
    ['too short', { type: 'string', title: 'S', minLength: 4, default: 'ab' }],
    [
      'multi default outside options',
      { type: 'array', title: 'M', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['z'] },
    ],
    ['wrong type', { type: 'boolean', title: 'B', default: 'false' }],
  ])('fires on %s', (_label, field) => {
    expect(lint(formRequest({ f: field })).map((x) => [x.rule, x.field])).toContainEqual(['EK15', 'f']);
  });
  it('names a default nested past JSON.stringify by its kind', () => {
    const object = JSON.parse(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
    const list = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    for (const [value, shown] of [
      [object, '{…}'],
      [list, '[…]'],
    ] as const) {
      const found = lint(formRequest({ f: { type: 'string', title: 'F', default: value } })).find(
        (x) => x.rule === 'EK15',
      );
      expect(found?.message).toBe(`field "f" has default ${shown}, which is not a string`);
    }
  });
  it('does not fire on valid defaults', () => {
    expect(
      rules(
        formRequest({
          n: { type: 'number', title: 'N', maximum: 3, default: 3 },
          d: { type: 'string', title: 'D', format: 'date', default: '2024-02-29' },
        }),
      ),
    ).toEqual([]);
  });
});

describe('rules catalogue', () => {
  it('has all eighteen rules with their catalogue severities, EK16 to EK18 judged by doctor alone', () => {
    expect(Object.keys(RULES)).toHaveLength(18);
    expect([RULES.EK16.static, RULES.EK17.static, RULES.EK18.static]).toEqual([false, false, false]);
    expect(
      Object.values(RULES)
        .filter((r) => r.severity === 'warning')
        .map((r) => r.code),
    ).toEqual(['EK07', 'EK08', 'EK10', 'EK11']);
  });
});

describe('lintForm: a form judged on its own', () => {
  it('finds what lint finds, EK11 aside, for forms in and outside the subset', () => {
    const schemas: unknown[] = [
      { type: 'object', properties: { password: { type: 'string' } } },
      { type: 'object', properties: { env: { type: 'string', enum: ['a', 'b'] } } },
      { type: 'object', properties: {} },
      { type: 'object', properties: { owner: { type: 'object', properties: {} } } },
      {
        type: 'object',
        properties: { sure: { type: 'boolean', title: 'I understand this deletes every row', default: true } },
      },
      'not a schema',
    ];
    for (const requestedSchema of schemas) {
      const full = lint({ mode: 'form', message: 'Please review the details below before going on.', requestedSchema });
      expect(lintForm(requestedSchema)).toEqual(full.filter((f) => f.rule !== 'EK11'));
    }
  });
});

describe('words(): how lint splits names and prose', () => {
  it('splits camel case, acronyms before a word, snake and kebab case', async () => {
    const { words } = await import('./words.js');
    expect(words('releaseTicket')).toEqual(['release', 'ticket']);
    expect(words('HTTPServer apiKEY')).toEqual(['http', 'server', 'api', 'key']);
    expect(words('api_key Card-Number')).toEqual(['api', 'key', 'card', 'number']);
    expect(words('ABCDef')).toEqual(['abc', 'def']);
  });
});
