/**
 * Word lists and matchers behind the heuristic rules. English matches whole words (so `ticket`
 * never reads as `token`); Chinese has no word breaks and matches substrings.
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
  const shown = text.normalize('NFKC');
  return vocabulary.zh.find((z) => shown.includes(z));
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
