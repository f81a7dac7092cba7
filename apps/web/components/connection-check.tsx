'use client';

import { useState } from 'react';
import type { ModelCheck } from '../lib/wire';
import type { PageTexts } from './texts';

/** "Test connection": one tiny request to the model endpoint, and what is wrong if it fails. */
export function ConnectionCheck({ texts, csrf, locale }: { texts: PageTexts; csrf: string; locale: string }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    try {
      const reply = await fetch('/api/model/check', {
        method: 'POST',
        headers: { 'x-elicitkit-csrf': csrf, 'x-elicitkit-locale': locale },
      });
      const check = (await reply.json()) as ModelCheck;
      setResult(
        check.ok
          ? { ok: true, text: texts.connectionOk(check.ms) }
          : { ok: false, text: check.kind === 'not-configured' ? texts.noModelToTest : check.message },
      );
    } catch {
      setResult({ ok: false, text: texts.serverGone });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="connection-check">
      <button type="button" onClick={() => void run()} disabled={busy}>
        {busy ? texts.testing : texts.testConnection}
      </button>
      {result ? (
        <span className={result.ok ? 'ok' : 'error'} role="status" data-check={result.ok ? 'ok' : 'failed'}>
          {result.text}
        </span>
      ) : null}
    </span>
  );
}
