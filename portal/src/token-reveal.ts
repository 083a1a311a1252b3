/**
 * A key's token, shown once: in the answer that created or rolled it, never again. It lives in
 * this component's props only, gone when the visitor dismisses it or leaves the page.
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';

/** Props of {@link TokenReveal}. */
export interface TokenRevealProps {
  /** The key's name. */
  readonly name: string;
  readonly token: string;
  /** A sentence after the note, e.g. until when the old token works. */
  readonly detail?: string;
  readonly onDone: () => void;
}

/** The token with a "Copy" control and the note that it will not be shown again. */
export function TokenReveal({ name, token, detail, onDone }: TokenRevealProps) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the token and copy it.');
    }
  };
  return html`<section class="token" aria-labelledby="token-title">
    <h2 id="token-title">The token of ${name}</h2>
    <p><strong>This token will not be shown again.</strong> Copy it now and keep it secret: it is
      the key's password. ${detail ?? ''}</p>
    <label for="token-value">Token</label>
    <input id="token-value" readonly value=${token} spellcheck="false" autocomplete="off" />
    <div class="actions">
      <button type="button" onClick=${copy}>Copy</button>
      <button type="button" onClick=${onDone}>Done</button>
    </div>
    <p role="status">${copied}</p>
  </section>`;
}
