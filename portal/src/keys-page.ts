/**
 * The signed-in home: the account, its keys in a table, "Create key" (a name and scopes, Free
 * plan, the token shown once) and deleting the account.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { PortalApp } from './app-context.ts';
import { ConfirmDialog } from './dialog.ts';
import { planName, SCOPE_LABELS, utcTime } from './format.ts';
import { type AccountAnswer, allKeys, dataOf, type PortalKey } from './portal-client.ts';
import { TokenReveal } from './token-reveal.ts';

/** The keys page. */
export function KeysPage({ app }: { readonly app: PortalApp }) {
  const [account, setAccount] = useState<AccountAnswer>();
  const [keys, setKeys] = useState<PortalKey[]>();
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [confirming, setConfirming] = useState(false);

  const refresh = () =>
    app.run(async () => {
      const [next, list] = await Promise.all([loadAccount(app), allKeys(app.client)]);
      setAccount(next);
      setKeys(list);
    });
  useEffect(() => {
    document.title = 'Your keys · Petstore developer portal';
    refresh();
  }, []);

  const create = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const name = String(form.get('name') ?? '').trim();
    const scope = form.get('scope') === 'pets:write' ? 'pets:write' : 'pets:read';
    app.run(async () => {
      const answer = dataOf(await app.client.POST('/keys', { body: { name, scopes: [scope] } }));
      (event.target as HTMLFormElement).reset();
      setCreated({ name: answer.key.name, token: answer.token });
      app.announce(`Key ${answer.key.name} created.`);
      await refresh();
    });
  };

  const deleteAccount = () =>
    app.run(async () => {
      setConfirming(false);
      const { response } = await app.client.DELETE('/account');
      if (!response.ok) dataOf({ error: await response.json(), response });
      await app.signedOut('Your account is deleted and its keys are revoked.');
    });

  if (!account || !keys) return html`<h1>Your keys</h1><p>Loading…</p>`;
  const plans = account.plans;
  return html`<h1>Your keys</h1>
    <p>Signed in as <strong>${account.account.email}</strong>. Active keys: ${account.keys.active} of ${account.keys.max}.</p>
    ${account.account.emailVerified ? '' : html`<p class="warning">Verify your email before you create a key.</p>`}
    ${
      created &&
      html`<${TokenReveal} name=${created.name} token=${created.token}
      onDone=${() => setCreated(undefined)} />`
    }
    <section aria-labelledby="create-title">
      <h2 id="create-title">Create a key</h2>
      <p>New keys are on the Free plan (${plans[0] ? `${plans[0].perMinute} requests a minute, ${plans[0].perDay} a day` : ''}).</p>
      <form onSubmit=${create}>
        <label for="key-name">Key name</label>
        <input id="key-name" name="name" required maxlength="64" autocomplete="off" />
        <fieldset>
          <legend>Scopes</legend>
          ${(['pets:read', 'pets:write'] as const).map(
            (scope) => html`<label class="choice">
              <input type="radio" name="scope" value=${scope} checked=${scope === 'pets:read'} />
              ${SCOPE_LABELS[scope]}
            </label>`,
          )}
        </fieldset>
        <button type="submit">Create key</button>
      </form>
    </section>
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      ${keys.length === 0 ? html`<p>No keys yet.</p>` : html`<${KeysTable} keys=${keys} plans=${plans} />`}
    </section>
    <section aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <p>Deleting the account revokes every key of it first.</p>
      <button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete account</button>
    </section>
    ${
      confirming &&
      html`<${ConfirmDialog} title="Delete your account?"
      message="Every key of the account is revoked, and the account is removed. This cannot be undone."
      confirm="Delete my account" onConfirm=${deleteAccount} onCancel=${() => setConfirming(false)} />`
    }`;
}

/** getAccount's answer. */
async function loadAccount(app: PortalApp): Promise<AccountAnswer> {
  return dataOf(await app.client.GET('/account'));
}

/** The keys, one row each, the name a link to the key's page. */
function KeysTable({
  keys,
  plans,
}: {
  readonly keys: PortalKey[];
  readonly plans: AccountAnswer['plans'];
}) {
  return html`<table>
    <thead><tr>
      <th scope="col">Name</th><th scope="col">Plan</th><th scope="col">Scopes</th>
      <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th>
      <th scope="col">Status</th>
    </tr></thead>
    <tbody>${keys.map(
      (key) => html`<tr>
        <th scope="row"><a href=${`#/keys/${key.keyId}`}>${key.name}</a></th>
        <td>${planName(key, plans)}</td>
        <td>${key.scopes.join(', ')}</td>
        <td>${utcTime(key.createdAt)}</td>
        <td>${key.lastUsed ?? 'never'}</td>
        <td>${key.expiresAt ? utcTime(key.expiresAt) : 'never'}</td>
        <td>${key.status}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}
