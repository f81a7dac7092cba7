/**
 * @elicitkit/react — MCP elicitation for React apps: `<ElicitationForm>` and `<UrlConsent>` in an
 * accessible modal, drawn from the `@elicitkit/form` field model and validated by the same
 * validator as every other renderer, plus `createDomRenderer`, the in-page `Renderer` for
 * `@elicitkit/client`. Browser-only; styles ship separately as `@elicitkit/react/styles.css`.
 *
 * @example
 * 'use client';
 * import { ElicitationForm, UrlConsent } from '@elicitkit/react';
 * import '@elicitkit/react/styles.css';
 *
 * export function Question({ id, prompt, expiresAt }) {
 *   const answer = (body) => fetch(`/api/elicitations/${id}`, { method: 'POST', body: JSON.stringify(body) });
 *   return prompt.mode === 'url' ? (
 *     <UrlConsent prompt={prompt} expiresAt={expiresAt} onOpen={() => answer({ action: 'accept' })}
 *       onDecline={() => answer({ action: 'decline' })} onCancel={() => answer({ action: 'cancel' })} />
 *   ) : (
 *     <ElicitationForm prompt={prompt} expiresAt={expiresAt} onSubmit={(content) => answer({ action: 'accept', content })}
 *       onDecline={() => answer({ action: 'decline' })} onCancel={() => answer({ action: 'cancel' })} />
 *   );
 * }
 */

// Each section comment stands alone (a blank line after it), so sorting exports keeps it in place.

// The two dialogs: a form, and consent to open a URL

export { ElicitationForm, type ElicitationFormProps } from './elicitation-form.js';
export { UrlConsent, type UrlConsentProps } from './url-consent.js';

// Their words, in English and Chinese, or your own

export { LABELS_EN, type Labels } from './labels.js';
export { LABELS_ZH } from './labels-zh.js';

// The same dialogs as a `Renderer` for `attach` in the page

export { createDomRenderer, type DomRendererOptions } from './dom-renderer.js';
export { plain as plainText } from './text.js';
