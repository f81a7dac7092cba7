import { type MessageContext, type ShownIdentifier, shownIdentifier } from './identifiers.js';
import { type Finding, finding } from './rules.js';

const TEMPLATE_LEFTOVER = /\bundefined\b|\bNaN\b|\[object Object\]|\$\{|\{\{|\}\}|\bnull\b/;
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/g;
const GENERIC_EN =
  /^\s*(please\s+)?(enter|provide|input|fill\s+in|fill\s+out|select|choose|give|type)(\s+(the|a|an|your|some))?\s+(value|values|input|inputs|info|information|details|data|parameter|parameters|params|field|fields|form|answer)s?\s*[.!?:]?\s*$/i;
const GENERIC_ZH = /^\s*请(输入|填写|提供|选择)(参数|信息|内容|数据|值|表单)?\s*[。！？：.!?:]?\s*$/;
/** Longer than any generic message ("Please enter the values for the parameters."). */
const GENERIC_MAX = 120;

/**
 * Rule EK11: the message is what a person reads before deciding. It must say who wants what and
 * why, in their words: not a key name, not a template that failed to fill in, not two words.
 * "Their words" include the names they gave (`context.given`): the table they must type to confirm
 * came from their own SQL. Without a context, any unquoted code-shaped name is the server's.
 */
export function messageFindings(message: string, context?: MessageContext): Finding[] {
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
  const shown = shownIdentifier(text, context);
  if (shown) out.push(identifierFinding(shown));
  // A generic message is a few words: a long one is not tested (the patterns' optional spaces would
  // backtrack on a long run of them, in the server or in a client reading a hostile one).
  if (text.length <= GENERIC_MAX && (GENERIC_EN.test(text) || GENERIC_ZH.test(text))) {
    out.push(finding('EK11', `the message "${text}" does not say what it is about`, fix));
  } else if (weight(text) < 3) {
    out.push(finding('EK11', `the message "${text}" is too short to explain itself`, fix));
  }
  return out;
}

/** A form's key needs another fix than a stray name: quoting it would still show the server's word. */
function identifierFinding({ name, why }: ShownIdentifier): Finding {
  return why === 'form'
    ? finding(
        'EK11',
        `the message shows "${name}", the form's own name for a field or option`,
        'Name the field by its title and the option by its label: that is what the person sees (quoting the key does not help).',
      )
    : finding(
        'EK11',
        `the message shows the internal identifier "${name}"`,
        "Use the words a person knows (the field's title), or quote the identifier if the person really needs it.",
      );
}

/** Roughly "how many words": Latin words count one, CJK characters half. */
function weight(text: string): number {
  const latin = text.replace(CJK, ' ').match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return latin + cjk / 2;
}
