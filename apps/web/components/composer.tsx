'use client';

import type { PageTexts } from './texts';

/** The message box: send (or stop the running turn). Disabled until the chat is known. */
export function Composer({
  texts,
  input,
  onInput,
  onSend,
  onStop,
  busy,
  ready,
  hasModel,
}: {
  texts: PageTexts;
  input: string;
  onInput: (text: string) => void;
  onSend: (text: string) => void;
  onStop: () => void;
  busy: boolean;
  /** The chat (and its CSRF token) is known. */
  ready: boolean;
  hasModel: boolean;
}) {
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        onSend(input);
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        {texts.message}
      </label>
      <input
        id="composer-input"
        value={input}
        onChange={(e) => onInput(e.target.value)}
        placeholder={hasModel ? texts.placeholderModel : '/deploy_service service=order-service'}
        autoComplete="off"
        disabled={!ready}
      />
      {busy ? (
        <button type="button" onClick={onStop}>
          {texts.stop}
        </button>
      ) : (
        <button type="submit" disabled={!ready}>
          {texts.send}
        </button>
      )}
    </form>
  );
}
