/**
 * Word lists and matchers behind the heuristic rules. English matches whole words (so `ticket`
 * never reads as `token`); Chinese has no word breaks and matches substrings.
 */

/** Splits `releaseTicket`, `api_key`, `Card-Number` and prose into lowercase words. */
export function words(text: string): string[] {
  // `HTTPServer` → `HTTP Server`: a capital before a capitalised word, found by looking ahead two
  // characters (linear; `[A-Z]+` before it backtracked over a long run of capitals, n²).
  return text
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
  /** Chinese terms, matched as substrings. */
  zh: readonly string[];
}

/** Rule EK09: what a form must never ask for (the protocol's security MUSTs). */
export const SECRETS: Vocabulary = {
  words: [
    'password',
    'passwd',
    'pwd',
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
    'social security number',
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
  ],
  zh: ['密码', '口令', '令牌', '密钥', '私钥', '秘钥', '卡号', '信用卡', '安全码', '验证码', '助记词', '银行账号'],
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
  zh: ['确认', '同意', '知晓', '了解', '批准', '接受', '明白', '已阅读'],
};

/** A text field the person fills in to confirm ("Type the table name to confirm"). */
export const TYPED_CONFIRMATION: Vocabulary = {
  words: ['typed', 'retype', 'retyped'],
  phrases: ['type the', 'type in', 're enter'],
  suffixes: ['typed'],
  zh: ['输入'],
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
  zh: ['删除', '删掉', '清空', '销毁', '覆盖', '不可恢复', '不可逆', '无法撤销', '生产', '强制'],
};

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
  return vocabulary.zh.find((z) => text.includes(z));
}

/** Query or fragment parameter names that carry credentials (rule EK14). */
export const URL_SECRET_PARAMS: ReadonlySet<string> = new Set([
  'token',
  'accesstoken',
  'idtoken',
  'refreshtoken',
  'authtoken',
  'auth',
  'authorization',
  'bearer',
  'jwt',
  'apikey',
  'key',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'session',
  'sessionid',
  'sid',
  'credential',
  'credentials',
  'sig',
  'signature',
  'xamzsignature',
  'xamzcredential',
  'xamzsecuritytoken',
]);

/** A JSON Web Token, whatever parameter carries it. */
export const JWT = /^eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*$/;
