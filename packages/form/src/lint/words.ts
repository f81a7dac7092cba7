/**
 * Word lists and matchers behind the heuristic rules. Latin-script words match whole (so `ticket`
 * never reads as `token`); scripts the Latin split cannot read (Chinese and Japanese have no word
 * breaks, Korean and Russian inflect by suffix) match substrings.
 */

/**
 * Splits `releaseTicket`, `api_key`, `Card-Number` and prose into lowercase words, each letter
 * read as the Latin letter it looks like (`asShown`): a word is judged as a person reads it.
 */
export function words(text: string): string[] {
  // `HTTPServer` → `HTTP Server`: a capital before a capitalised word, found by looking ahead two
  // characters (linear; `[A-Z]+` before it backtracked over a long run of capitals, n²).
  return asShown(text)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

interface Vocabulary {
  /** Single words, matched whole. */
  words: readonly string[];
  /** Phrases of several words, matched as consecutive words. */
  phrases: readonly string[];
  /** Compounds written without separators, matched as suffixes of a run-together name (`accesstoken`). */
  suffixes: readonly string[];
  /**
   * Terms in scripts the Latin split cannot read (Chinese, Japanese, Korean, Cyrillic), matched as
   * substrings of the text as written, in lower case: `登录密码`, `パスワードを`, `Пароль`.
   */
  substrings: readonly string[];
  /** Upper-case abbreviations, matched whole and in this case only: `PAT`, where `pat` is a name. */
  acronyms?: readonly string[];
}

/** Rule EK09: what a form must never ask for (the protocol's security MUSTs). */
export const SECRETS: Vocabulary = {
  words: [
    'password',
    'passwd',
    'pwd',
    'pw',
    'passphrase',
    'passcode',
    'secret',
    'token',
    'apikey',
    'cvv',
    'cvv2',
    'cvc',
    'pin',
    'otp',
    'credential',
    'credentials',
    'mnemonic',
    'iban',
    // What logs in as the person (a session cookie, an Authorization header's bearer token) and
    // what identifies them for life (a US social security number).
    'cookie',
    'bearer',
    'ssn',
    // "Password" in the languages a form is commonly written in (accents are dropped first:
    // contraseña → contrasena, senha, wachtwoord, Passwort/Kennwort).
    'passwort',
    'kennwort',
    'contrasena',
    'senha',
    'wachtwoord',
  ],
  phrases: [
    'api key',
    'access key',
    'secret key',
    'private key',
    'client secret',
    'card number',
    'credit card',
    'debit card',
    'security code',
    'pin code',
    'seed phrase',
    'recovery phrase',
    'one time password',
    'one time code',
    'verification code',
    'auth code',
    'bank account',
    'routing number',
    'social security',
    'authorization header',
    'auth header',
    'mot de passe',
  ],
  suffixes: [
    'password',
    'passwd',
    'passphrase',
    'passcode',
    'secret',
    'token',
    'apikey',
    'privatekey',
    'accesskey',
    'cardnumber',
    'cookie',
    'passwort',
    'kennwort',
    'contrasena',
    'wachtwoord',
  ],
  substrings: [
    '密码',
    '口令',
    '令牌',
    '密钥',
    '私钥',
    '秘钥',
    '卡号',
    '信用卡',
    '安全码',
    '验证码',
    '助记词',
    '银行账号',
    // Japanese: password, PIN, private key.
    'パスワード',
    '暗証番号',
    '秘密鍵',
    // Korean: password.
    '비밀번호',
    // Russian: password, in the cases a form puts it in ("Пароль", "введите пароль", "для пароля").
    'пароль',
    'пароля',
  ],
  // A GitHub or Azure DevOps personal access token; lower-case "pat" is a name.
  acronyms: ['PAT'],
};

/** Rules EK06 and EK10: a boolean that stands for "I agree". */
export const CONFIRMATION: Vocabulary = {
  words: [
    'confirm',
    'confirmed',
    'confirmation',
    'agree',
    'agreed',
    'accept',
    'accepted',
    'acknowledge',
    'acknowledged',
    'understood',
    'understand',
    'approve',
    'approved',
    'consent',
    'sure',
    'proceed',
  ],
  phrases: ['i have checked', 'i have reviewed', 'i take responsibility'],
  suffixes: ['confirmed', 'confirm', 'understood', 'acknowledged', 'approved', 'agreed'],
  substrings: ['确认', '同意', '知晓', '了解', '批准', '接受', '明白', '已阅读'],
};

/** A text field the person fills in to confirm ("Type the table name to confirm"). */
export const TYPED_CONFIRMATION: Vocabulary = {
  words: ['typed', 'retype', 'retyped'],
  phrases: ['type the', 'type in', 're enter'],
  suffixes: ['typed'],
  substrings: ['输入'],
};

/** Rule EK10: actions that destroy or reach production. */
export const DESTRUCTIVE: Vocabulary = {
  words: [
    'delete',
    'deletes',
    'deleting',
    'drop',
    'drops',
    'truncate',
    'destroy',
    'remove',
    'removes',
    'wipe',
    'purge',
    'erase',
    'overwrite',
    'irreversible',
    'production',
    'prod',
    'force',
  ],
  phrases: ['cannot be undone', 'can not be undone', 'permanently'],
  suffixes: [],
  substrings: ['删除', '删掉', '清空', '销毁', '覆盖', '不可恢复', '不可逆', '无法撤销', '生产', '强制'],
};

/**
 * Letters that look like Latin ones, in the scripts a person may take for Latin (Cyrillic, Greek,
 * Armenian, and Latin's own variants), each beside the letter it is read as. Compatibility forms
 * (fullwidth `ｐａｓｓ`, mathematical `𝐩𝐚𝐬𝐬`) and accents are folded before this table is consulted.
 */
const LOOK_ALIKES: readonly (readonly [string, string])[] = [
  // Cyrillic, lower and upper case
  ['авеёкмнорстухѕіїјԁԛԝһүьӏԍ', 'abeekmhopctyxsiijdqwhyblg'],
  ['АВЕЁКМНОРСТУХЅІЇЈԀԚԜҺҮӀԌ', 'ABEEKMHOPCTYXSIIJDQWHYlG'],
  // Greek
  ['αβεηικνορτυχϲϳζμ', 'abenikvoptuxcjzu'],
  ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿ', 'ABEZHIKMNOPTYXCJ'],
  // Armenian
  ['օսոհցզՕՍ', 'ounhgqOU'],
  // Latin variants NFKC keeps (dotless i, script a, small capitals)
  ['ıȷɑɡɩʏᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡᴢ', 'ijagiyabcdeghijklmnoprstuvwz'],
];
const READ_AS = new Map(LOOK_ALIKES.flatMap(([from, to]) => [...from].map((c, i) => [c, to[i] as string] as const)));
const LOOK_ALIKE = new RegExp(`[${[...READ_AS.keys()].join('')}]`, 'gu');

/**
 * `text` as a person reads it: compatibility forms folded (NFKC), accents dropped, and letters that
 * look like Latin ones read as those — a hostile form that spells "Pаssword" with a Cyrillic а is
 * judged as asking for a password. Letters with no Latin look-alike are left as they are.
 */
function asShown(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .normalize('NFKC')
    .replace(LOOK_ALIKE, (c) => READ_AS.get(c) ?? c);
}

/** The first term of the vocabulary found in `text`, or undefined. */
export function findTerm(text: string, vocabulary: Vocabulary): string | undefined {
  const list = words(text);
  const joined = ` ${list.join(' ')} `;
  const word = list.find((w) => vocabulary.words.includes(w));
  if (word) return word;
  const phrase = vocabulary.phrases.find((p) => joined.includes(` ${p} `));
  if (phrase) return phrase;
  const compact = list.join('');
  const suffix = vocabulary.suffixes.find((s) => compact.endsWith(s) && compact !== s);
  if (suffix) return suffix;
  if (vocabulary.acronyms) {
    const whole = asShown(text).split(/[^A-Za-z0-9]+/);
    const acronym = vocabulary.acronyms.find((a) => whole.includes(a));
    if (acronym) return acronym;
  }
  const shown = text.normalize('NFKC').toLowerCase();
  return vocabulary.substrings.find((z) => shown.includes(z));
}

/** Clause breaks in prose: a negation reaches no further than its clause. Commas do not break one ("not your phone number, pin…"). */
const CLAUSE_BREAK = /[.;:!?()[\]\n。；：！？（）]/u;
/** Where a clause turns to what must not be given: "do not", "never", "no", "without", "don't", 请勿, 不要… */
const NEGATION = /\b(?:not|never|no|nor|without)\b|n['’]t\b|不要|请勿|切勿|无需|不必/iu;

/**
 * The first term of the vocabulary that prose asks for, or undefined. A term named after a
 * negation in its clause is a warning not to give it — a field described "Your favourite integer
 * (do not give us your phone number, pin, or other sensitive info)" asks for no PIN — so only what
 * comes before the negation counts: "Paste the token, not your user name" still asks for a token.
 */
export function findAskedTerm(text: string, vocabulary: Vocabulary): string | undefined {
  // A URL or a file path in prose names a place, not what to type: "<file:///etc/passwd>" asks for no password.
  const prose = text.replace(PLACES, ' ');
  for (const clause of prose.split(CLAUSE_BREAK)) {
    const negation = NEGATION.exec(clause);
    const term = findTerm(negation ? clause.slice(0, negation.index) : clause, vocabulary);
    if (term) return term;
  }
  return undefined;
}

/** URLs (a scheme, then anything up to a space or a closing bracket) and absolute or relative file paths in prose. */
const PLACES = /\b[a-z][\w+.-]*:\/*[^\s<>()[\]]+|(?<![\w.])(?:~|\.{1,2})?\/[^\s<>()[\]]+/gi;

/**
 * Query or fragment parameter names that carry a credential only as the whole name (rule EK14):
 * short or general words that end many harmless names (`sort_key`, `by_pass`), so they are judged
 * whole. The endings below catch the rest.
 */
export const URL_SECRET_PARAMS: ReadonlySet<string> = new Set([
  'auth',
  'authorization',
  'bearer',
  'jwt',
  'key',
  'pass',
  'session',
  'sid',
]);

/**
 * Endings of a parameter name, run together, that carry a credential whatever comes before them
 * (rule EK14): GitLab's `private_token`, `oauth_token`, `github_token`, `client_secret`,
 * `X-Amz-Signature`, `x-api-key`, `JSESSIONID`. A `key` alone ends too many harmless names, so
 * only the kinds of key that open something are listed.
 */
export const URL_SECRET_ENDINGS: readonly string[] = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'credential',
  'credentials',
  'signature',
  'sessionid',
  'cookie',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'signingkey',
  'authkey',
  'appkey',
  'clientkey',
  'consumerkey',
  'licensekey',
  'subscriptionkey',
  'masterkey',
];

/** Short credential words judged as a name's last word (`url_sig`, `db_pwd`): as bare endings they would match inside other words. */
export const URL_SECRET_LAST_WORDS: ReadonlySet<string> = new Set(['sig', 'pwd']);

/**
 * Pagination cursors, which their APIs call tokens (Google's `pageToken`, AWS's `NextToken`): the
 * value is a place in a list, not a credential. Run together, as `URL_SECRET_PARAMS`.
 */
export const URL_CURSOR_PARAMS: ReadonlySet<string> = new Set([
  'pagetoken',
  'nexttoken',
  'nextpagetoken',
  'prevtoken',
  'previoustoken',
  'continuationtoken',
  'cursortoken',
  'synctoken',
  'resumetoken',
  'resumptiontoken',
  'paginationtoken',
]);

/** A JSON Web Token, whatever parameter carries it. */
export const JWT = /^eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*$/;

/**
 * A credential its issuer marks with a fixed prefix, whatever parameter carries it: GitHub
 * (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Stripe (`sk_live_`,
 * `rk_test_`…), Slack (`xoxb-`, `xoxp-`…), AWS access key ids (`AKIA…`, `ASIA…`), OpenAI and
 * Anthropic (`sk-proj-`, `sk-ant-`, or `sk-` and 32 letters and digits: a slug such as
 * `sk-winter-sale` has dashes) and Google API keys (`AIza…`). Issuers add the prefix so that a
 * leaked key is recognised.
 */
export const PREFIXED_CREDENTIAL =
  /^(?:(?:gh[opusr]_|github_pat_|glpat-|[rs]k_(?:live|test)_|xox[abeposr]-)[\w-]{4,}|A[KS]IA[0-9A-Z]{16}|sk-(?:proj|svcacct|admin|ant)-[\w-]{20,}|sk-[A-Za-z0-9]{32,}|AIza[\w-]{35})/;
