// @vitest-environment jsdom
/**
 * What a server writes is shown as text, never as markup or a link: a uri field's default, a
 * description, a title, an option or the message holding `javascript:`, `data:` or `file:` URLs,
 * HTML or Markdown links draws nothing clickable and nothing that loads. The form's only way to a
 * URL is `<UrlConsent>`, which opens https and http links alone.
 */
import type { FormSchema } from '@elicitkit/form';
import { cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formPrompt } from '../test/prompts.js';
import { ElicitationForm } from './elicitation-form.js';

afterEach(cleanup);

const JS = 'javascript:alert(document.domain)';
const HTML = `<a href="${JS}">Open</a><img src=x onerror=alert(1)><script>alert(1)</script>`;
const MARKDOWN = `[Open](${JS}) ![x](data:text/html,<script>alert(1)</script>) <file:///etc/passwd>`;

const HOSTILE: FormSchema = {
  type: 'object',
  properties: {
    site: { type: 'string', title: `Site ${HTML}`, format: 'uri', default: JS, description: MARKDOWN },
    page: { type: 'string', title: 'Page', format: 'uri', default: 'data:text/html,%3Cscript%3Ealert(1)%3C/script%3E' },
    file: { type: 'string', title: 'File', format: 'uri', default: 'file:///etc/passwd', description: HTML },
    pick: {
      type: 'string',
      title: 'Pick',
      oneOf: [
        { const: JS, title: `Go ${HTML}` },
        { const: 'b', title: MARKDOWN },
      ],
    },
    radio: { type: 'string', title: 'Radio', enum: [JS, 'data:,x'] },
    many: { type: 'array', title: 'Many', items: { anyOf: [{ const: JS, title: HTML }] } },
  },
};

/** Every element that could navigate, load or run something when drawn or clicked. */
const ACTIVE =
  'a, area, link, script, iframe, object, embed, img, base, form[action], [href], [src], [formaction], [xlink\\:href], [onerror], [onclick]';

describe('hostile text in a form', () => {
  it('is drawn as text: no link, no markup, nothing that loads', async () => {
    const onSubmit = vi.fn();
    const { container } = render(
      <ElicitationForm
        prompt={formPrompt(HOSTILE, { message: `Click ${HTML} or ${MARKDOWN}` })}
        onSubmit={onSubmit}
        onDecline={vi.fn()}
        onCancel={vi.fn()}
      />,
    );
    const dialog = container.ownerDocument.body;
    expect(dialog.querySelectorAll(ACTIVE)).toHaveLength(0);
    // The markup is there, as the letters the server sent.
    expect(dialog.textContent).toContain(HTML);
    expect(dialog.textContent).toContain(MARKDOWN);
    // A uri default is the value of a text box, not a link.
    const site = screen.getByRole('textbox', { name: /^Site/ }) as HTMLInputElement;
    expect(site.value).toBe(JS);
    expect(site.closest('a')).toBeNull();
    // Pressing every option's label clicks nothing but the option.
    const user = userEvent.setup({ delay: null });
    for (const label of dialog.querySelectorAll('label')) await user.click(label);
    expect(dialog.querySelectorAll(ACTIVE)).toHaveLength(0);
  });
});
