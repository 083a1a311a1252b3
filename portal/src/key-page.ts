/**
 * One key: its fields, its usage (chart and table, what is left this minute and today), "Roll"
 * with a grace period, "Change plan" (Free at once; Pro or Business asked of billing; Enterprise
 * by contact), and "Revoke" after a confirmation.
 */
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { PortalApp } from './app-context.ts';
import { ConfirmDialog } from './dialog.ts';
import { count, planLimits, planName, utcTime } from './format.ts';
import { type AccountAnswer, dataOf, type PortalKey, type UsageAnswer } from './portal-client.ts';
import { TokenReveal } from './token-reveal.ts';
import { UsageChart } from './usage-chart.ts';

/** The grace periods rollPortalKey takes, with their words. */
const GRACES = [
  [0, 'No grace: the old token stops now'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '1 week'],
] as const;

/** Props of {@link KeyPage}. */
export interface KeyPageProps {
  readonly app: PortalApp;
  readonly keyId: string;
}

/** The key's page, at `#/keys/<keyId>`. */
export function KeyPage({ app, keyId }: KeyPageProps) {
  const [key, setKey] = useState<PortalKey>();
  const [usage, setUsage] = useState<UsageAnswer>();
  const [account, setAccount] = useState<AccountAnswer>();
  const [rolled, setRolled] = useState<{ token: string; detail: string }>();
  const [confirming, setConfirming] = useState(false);
  const [missing, setMissing] = useState(false);
  const path = { params: { path: { keyId } } };

  const loadUsage = () =>
    app.run(async () => setUsage(dataOf(await app.client.GET('/keys/{keyId}/usage', path))));
  useEffect(() => {
    app
      .run(async () => {
        const [one, next] = await Promise.all([
          app.client.GET('/keys/{keyId}', path),
          app.client.GET('/account'),
        ]);
        setKey(dataOf(one).key);
        setAccount(dataOf(next));
      })
      .then((loaded) => {
        if (loaded) loadUsage();
        else setMissing(true);
      });
  }, [keyId]);
  useEffect(() => {
    document.title = `${key?.name ?? 'Key'} · Petstore developer portal`;
  }, [key]);

  const roll = (event: SubmitEvent) => {
    event.preventDefault();
    const graceSeconds = Number(new FormData(event.target as HTMLFormElement).get('grace'));
    app.run(async () => {
      const answer = dataOf(
        await app.client.POST('/keys/{keyId}/roll', {
          ...path,
          body: { graceSeconds: graceSeconds as 0 | 3600 | 86400 | 604800 },
        }),
      );
      setKey(answer.key);
      setRolled({
        token: answer.token,
        detail: answer.oldTokenUntil
          ? `The old token works until ${utcTime(answer.oldTokenUntil)}.`
          : 'The old token no longer works.',
      });
      app.announce(`Key ${answer.key.name} rolled.`);
    });
  };

  const revoke = () =>
    app.run(async () => {
      setConfirming(false);
      const answer = dataOf(await app.client.POST('/keys/{keyId}/revoke', path));
      setKey(answer.key);
      setRolled(undefined);
      app.announce(`Key ${answer.key.name} revoked.`);
    });

  const changePlan = (event: SubmitEvent) => {
    event.preventDefault();
    const plan = new FormData(event.target as HTMLFormElement).get('plan') as
      | 'free'
      | 'pro'
      | 'business';
    app.run(async () => {
      const answer = await app.client.PUT('/keys/{keyId}/plan', { ...path, body: { plan } });
      const body = dataOf(answer);
      if ('upgrade' in body) {
        const name = account?.plans.find(({ id }) => id === plan)?.name ?? plan;
        app.announce(
          `${name} requested: the key moves to ${name} once billing completes it; nothing changes until then.`,
        );
      } else {
        setKey(body.key);
        app.announce(`The key is on ${planName(body.key, account?.plans ?? [])} now.`);
      }
    });
  };

  if (!key || !account) {
    return html`<p><a href="#/">All keys</a></p>
      <h1>Key</h1>
      <p>${missing ? 'This key could not be shown.' : 'Loading…'}</p>`;
  }
  const active = key.status === 'active';
  return html`<p><a href="#/">All keys</a></p>
    <h1>${key.name}</h1>
    ${
      rolled &&
      html`<${TokenReveal} name=${key.name} token=${rolled.token} detail=${rolled.detail}
      onDone=${() => setRolled(undefined)} />`
    }
    <dl class="fields">
      <dt>Key id</dt><dd><code>${key.keyId}</code></dd>
      <dt>Plan</dt><dd>${planLimits({ ...key, name: planName(key, account.plans) })}</dd>
      <dt>Scopes</dt><dd>${key.scopes.join(', ')}</dd>
      <dt>Created</dt><dd>${utcTime(key.createdAt)}</dd>
      <dt>Last used</dt><dd>${key.lastUsed ?? 'never'}</dd>
      <dt>Expires</dt><dd>${key.expiresAt ? utcTime(key.expiresAt) : 'never'}</dd>
      <dt>Status</dt><dd>${key.status}${key.revokedAt ? ` since ${utcTime(key.revokedAt)}` : ''}</dd>
      ${key.oldTokenUntil && html`<dt>Old token works until</dt><dd>${utcTime(key.oldTokenUntil)}</dd>`}
    </dl>
    ${
      active &&
      html`<${Actions} account=${account} plan=${key.plan} onRoll=${roll} onChangePlan=${changePlan}
      onRevoke=${() => setConfirming(true)} />`
    }
    <${Usage} usage=${usage} onRefresh=${loadUsage} />
    ${
      confirming &&
      html`<${ConfirmDialog} title=${`Revoke ${key.name}?`}
      message="Requests with its token are refused within 60 seconds. A revoked key cannot be used again."
      confirm="Revoke key" onConfirm=${revoke} onCancel=${() => setConfirming(false)} />`
    }`;
}

/** Usage: what is left now, the chart, and the same days as a table. */
function Usage({
  usage,
  onRefresh,
}: {
  readonly usage?: UsageAnswer;
  readonly onRefresh: () => void;
}) {
  return html`<section aria-labelledby="usage-title">
    <h2 id="usage-title">Usage</h2>
    <button type="button" onClick=${onRefresh}>Refresh usage</button>
    ${
      usage
        ? html`<ul>
            <li>This minute: ${count(usage.minute.remaining)} of ${count(usage.minute.limit)} requests
              left (a new minute at ${utcTime(usage.minute.resetAt)}).</li>
            <li>Today: ${count(usage.day.remaining)} of ${count(usage.day.limit)} requests left (a new
              day at ${utcTime(usage.day.resetAt)}).</li>
          </ul>
          <${UsageChart} days=${usage.days} />
          <table>
            <caption>Requests per UTC day, newest first</caption>
            <thead><tr><th scope="col">Day</th><th scope="col">Admitted</th>
              <th scope="col">Refused (429)</th></tr></thead>
            <tbody>${usage.days.map(
              (day) => html`<tr><th scope="row">${day.day}</th><td>${count(day.admitted)}</td>
                <td>${count(day.refused)}</td></tr>`,
            )}</tbody>
          </table>`
        : html`<p>Loading…</p>`
    }
  </section>`;
}

/** Props of {@link Actions}. */
interface ActionsProps {
  readonly account: AccountAnswer;
  /** The key's plan, chosen at first. */
  readonly plan: PortalKey['plan'];
  readonly onRoll: (event: SubmitEvent) => void;
  readonly onChangePlan: (event: SubmitEvent) => void;
  readonly onRevoke: () => void;
}

/** What an active key offers: roll, change plan, revoke. */
function Actions({ account, plan: current, onRoll, onChangePlan, onRevoke }: ActionsProps) {
  return html`<section aria-labelledby="roll-title">
      <h2 id="roll-title">Roll the token</h2>
      <p>A new token for the same key: its id, plan, scopes and counters stay.</p>
      <form onSubmit=${onRoll}>
        <label for="grace">The old token keeps working for</label>
        <select id="grace" name="grace">
          ${GRACES.map(([seconds, words]) => html`<option value=${seconds} selected=${seconds === 3600}>${words}</option>`)}
        </select>
        <button type="submit">Roll</button>
      </form>
    </section>
    <section aria-labelledby="plan-title">
      <h2 id="plan-title">Plan</h2>
      <p>Moving down to Free happens at once. Pro and Business are asked for here and completed by
        billing; the key keeps its plan until then.</p>
      <form onSubmit=${onChangePlan}>
        <fieldset>
          <legend>Plans</legend>
          ${account.plans.map(
            (plan) => html`<label class="choice">
              <input type="radio" name="plan" value=${plan.id} checked=${plan.id === current} />
              ${planLimits(plan)}
            </label>`,
          )}
        </fieldset>
        <button type="submit">Change plan</button>
      </form>
      <p>More than Business? <a href=${account.enterpriseContactUrl}>Contact us about Enterprise</a>.</p>
    </section>
    <section aria-labelledby="revoke-title">
      <h2 id="revoke-title">Revoke</h2>
      <p>Revoking ends the key for good; it frees its place among your active keys.</p>
      <button type="button" class="danger" onClick=${onRevoke}>Revoke</button>
    </section>`;
}
