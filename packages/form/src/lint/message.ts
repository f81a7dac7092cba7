import { type Finding, finding } from './rules.js';

const TEMPLATE_LEFTOVER = /\bundefined\b|\bNaN\b|\[object Object\]|\$\{|\{\{|\}\}|\bnull\b/;
const SNAKE = /\b[a-z][a-z0-9]*_[a-z0-9_]+\b/;
const CAMEL = /\b[a-z]+[A-Z][A-Za-z0-9]*\b/;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;
const QUOTED = /`[^`]*`|"[^"]*"|“[^”]*”|「[^」]*」|『[^』]*』|(^|\s)'[^'\s][^']*'(?=$|[\s.,;:!?])/g;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/g;
const GENERIC_EN =
  /^\s*(please\s+)?(enter|provide|input|fill\s+in|fill\s+out|select|choose|give|type)(\s+(the|a|an|your|some))?\s+(value|values|input|inputs|info|information|details|data|parameter|parameters|params|field|fields|form|answer)s?\s*[.!?:]?\s*$/i;
const GENERIC_ZH = /^\s*请(输入|填写|提供|选择)(参数|信息|内容|数据|值|表单)?\s*[。！？：.!?:]?\s*$/;

/**
 * Rule EK11: the message is what a person reads before deciding. It must say who wants what and
 * why, in their words: not a key name, not a template that failed to fill in, not two words.
 */
export function messageFindings(message: string): Finding[] {
  const fix =
    'Say what is being asked and why in a full sentence, naming the subject (e.g. "Which environment should order-service be deployed to?").';
  const text = message.trim();
  if (text === '') return [finding('EK11', 'the message is empty', fix)];
  const out: Finding[] = [];
  if (TEMPLATE_LEFTOVER.test(text)) {
    out.push(
      finding(
        'EK11',
        `the message looks like an unfilled template: "${text.slice(0, 80)}"`,
        'Fill every placeholder before sending; check for undefined and null values.',
      ),
    );
  }
  const unquoted = text.replace(QUOTED, ' ');
  const ident = unquoted.match(SNAKE)?.[0] ?? unquoted.match(CAMEL)?.[0] ?? unquoted.match(UUID)?.[0];
  if (ident) {
    out.push(
      finding(
        'EK11',
        `the message shows the internal identifier "${ident}"`,
        "Use the words a person knows (the field's title), or quote the identifier if the person really needs it.",
      ),
    );
  }
  if (GENERIC_EN.test(text) || GENERIC_ZH.test(text)) {
    out.push(finding('EK11', `the message "${text}" does not say what it is about`, fix));
  } else if (weight(text) < 3) {
    out.push(finding('EK11', `the message "${text}" is too short to explain itself`, fix));
  }
  return out;
}

/** Roughly "how many words": Latin words count one, CJK characters half. */
function weight(text: string): number {
  const latin = text.replace(CJK, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return latin + cjk / 2;
}
