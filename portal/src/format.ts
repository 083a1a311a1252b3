/**
 * How the page writes times, counts and a key's fields: UTC throughout, as the limiter's windows
 * and the usage days are UTC.
 */
import type { Plan, PortalKey } from './portal-client.ts';

const NUMBER = new Intl.NumberFormat('en');

/** `1,000`. */
export const count = (value: number): string => NUMBER.format(value);

/** `2026-12-01 09:30 UTC` from an ISO 8601 time; `—` when absent. */
export function utcTime(iso: string | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '—';
}

/** `Free: 60 requests a minute, 1,000 a day`. */
export function planLimits(plan: Pick<Plan, 'name' | 'perMinute' | 'perDay'>): string {
  return `${plan.name}: ${count(plan.perMinute)} requests a minute, ${count(plan.perDay)} a day`;
}

/** `Free` for `free`: the plan's name among `plans`, else the id with a capital. */
export function planName(key: Pick<PortalKey, 'plan'>, plans: readonly Plan[]): string {
  return (
    plans.find((plan) => plan.id === key.plan)?.name ??
    key.plan.charAt(0).toUpperCase() + key.plan.slice(1)
  );
}

/** What a scope allows, in words. */
export const SCOPE_LABELS: Readonly<Record<PortalKey['scopes'][number], string>> = {
  'pets:read': 'pets:read (list and fetch pets)',
  'pets:write': 'pets:write (add pets, and read them)',
};
