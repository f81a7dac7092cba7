import type { UrlWarningCode } from '@elicitkit/client';
import type { FieldModel, IssueCode } from '@elicitkit/form';
import type { Labels } from './labels.js';

const between = (min: number | undefined, max: number | undefined, unit: string): string => {
  if (min !== undefined && max !== undefined) return `${min}–${max} ${unit}`.trim();
  if (min !== undefined) return `至少 ${min} ${unit}`.trim();
  return max !== undefined ? `最多 ${max} ${unit}`.trim() : '';
};

const FORMATS: Partial<Record<FieldModel['kind'], string>> = {
  email: '需要有效的电子邮件地址',
  uri: '需要完整的网址（以 https:// 等开头）',
  date: '需要真实的日期（YYYY-MM-DD）',
  'date-time': '需要带时区的日期和时间',
};

function issue(code: IssueCode, field: FieldModel): string | undefined {
  const name = `“${field.label}”`;
  switch (code) {
    case 'required':
      return `${name}为必填项。`;
    case 'too_short':
      return field.kind === 'text' ? `${name}至少需要 ${field.minLength ?? 1} 个字符。` : undefined;
    case 'too_long':
      return field.kind === 'text' && field.maxLength !== undefined
        ? `${name}最多 ${field.maxLength} 个字符。`
        : `${name}太长。`;
    case 'format':
      return FORMATS[field.kind] ? `${name}${FORMATS[field.kind]}。` : undefined;
    case 'too_small':
      return field.kind === 'number' || field.kind === 'integer' ? `${name}不能小于 ${field.minimum}。` : undefined;
    case 'too_big':
      return field.kind === 'number' || field.kind === 'integer' ? `${name}不能大于 ${field.maximum}。` : undefined;
    case 'not_integer':
      return `${name}需要整数。`;
    case 'type':
      return field.kind === 'integer'
        ? `${name}需要整数，例如 3。`
        : field.kind === 'number'
          ? `${name}需要数字，例如 2.5。`
          : undefined;
    case 'not_in_options':
      return `${name}需要从给出的选项中选择。`;
    case 'too_few':
      return field.kind === 'multiselect' ? `${name}至少选择 ${field.minItems} 项。` : undefined;
    case 'too_many':
      return field.kind === 'multiselect' ? `${name}最多选择 ${field.maxItems} 项。` : undefined;
    default:
      return undefined;
  }
}

const WARNINGS: Record<UrlWarningCode, string> = {
  punycode: '该主机名使用了国际化字符（punycode），可能在冒充你熟悉的网站。',
  insecure: '该链接使用不加密的 http 访问远程主机，你在那里输入的内容可能被他人读取。',
  credentials: '该链接在主机名前带有用户名或密码；真正的网站是“@”之后的部分。',
  token: '该链接的参数中带有令牌之类的凭据，可能会留在浏览历史和日志中。',
};

/**
 * Chinese (Simplified) labels, validation messages included.
 *
 * @example
 * <ElicitationForm labels={LABELS_ZH} … />
 */
export const LABELS_ZH: Labels = {
  lang: 'zh-CN',
  asks: (server) => `${server} 请求你填写`,
  unidentifiedServer: '未表明身份的服务器',
  asksToOpen: (server) => `${server} 请求你打开一个链接`,
  submit: '提交',
  sending: '正在发送…',
  decline: '拒绝',
  cancel: '取消',
  open: '打开链接',
  requiredNote: '标有 * 的为必填项。',
  noChoice: '不回答',
  choose: '请选择…',
  timeLeft: (clock) => `剩余时间 ${clock}`,
  expired: '已过期：这个问题已无法回答，服务器将按“取消”处理。',
  secretTitle: '此表单在索取机密信息',
  secretBody: (fields) => `${fields}：服务器不应通过表单索取密码、API 密钥或令牌。除非你十分确定，否则请拒绝。`,
  findingsTitle: '此表单违反了 Elicitkit 规则',
  previousRejected: '你上一次的回答未被接受',
  serverRejected: '服务器未接受这个回答',
  fixErrors: (count) => `尚未发送：请先修正下方标出的 ${count} 个字段。`,
  hint: {
    chars: (min, max) => between(min, max, '个字符'),
    range: (min, max, whole) => [whole ? '整数' : '数字', between(min, max, '')].filter((s) => s !== '').join('，'),
    choices: (min, max) => {
      const range = between(min, max, '项');
      return range === '' ? '' : `选择 ${range}`;
    },
    email: '电子邮件地址，例如 name@example.com',
    uri: '完整网址，例如 https://example.com',
    localTime: (offset) => `你的本地时间（${offset === 'Z' ? 'UTC' : `UTC${offset}`}）`,
    date: 'YYYY-MM-DD，例如 2026-11-30',
  },
  calendar: '选择日期',
  confirmationNote: '请勾选确认：不勾选，请求会被拒绝。',
  confirmationUnticked: (count) =>
    `尚未发送：有 ${count} 项确认未勾选，服务器会因此拒绝请求。请勾选；或再次点击提交按原样发送；或选择拒绝。`,
  host: '主机',
  site: '网站（页面归属）',
  urlNote: '在你选择“打开链接”之前，不会加载任何内容。',
  notOpenable: '此链接不能打开：只打开 https 和 http 链接。',
  warningsTitle: '请注意',
  waitingOnPage: (host) => `请在新标签页中打开的 ${host} 页面上完成操作。`,
  finishedOnPage: (host) => `已在 ${host} 页面上完成。`,
  close: '关闭',
  urlWarning: (code) => WARNINGS[code],
  issue,
  unanswerable: (found) =>
    `这个问题无法按原样回答：${found
      .map((u) => `“${u.field}”的${u.where === 'name' ? '名称' : '某个选项'}含有半个字符`)
      .join('；')}，任何回答都无法携带它。请拒绝或取消。`,
};
