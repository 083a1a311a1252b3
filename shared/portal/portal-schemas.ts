/** Valibot schemas of the portal API's bodies (docs/portal-openapi.yaml); unknown fields: 400. */
import * as v from 'valibot';
import { SCOPES } from '../keys/scopes.ts';
import { PLAN_IDS } from '../plans.ts';

/** Longest key name, in characters. */
export const MAX_KEY_NAME_LENGTH = 64;

/** The graces a roll offers: none, an hour, a day, a week (seconds). */
export const ROLL_GRACES = [0, 3_600, 86_400, 604_800] as const;

/** Body of createPortalKey. */
export const CreatePortalKeyBodySchema = v.strictObject({
  name: v.pipe(
    v.string('must be a string'),
    v.regex(/\S/u, 'must contain a non-space character'),
    v.maxLength(MAX_KEY_NAME_LENGTH, `must be at most ${MAX_KEY_NAME_LENGTH} characters`),
    v.check((text) => !/\p{Cc}/u.test(text), 'must not contain control characters'),
  ),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, `must be one of ${SCOPES.join(', ')}`), 'must be an array'),
    v.minLength(1, 'must hold at least one scope'),
  ),
});

/** Body of rollPortalKey. */
export const RollPortalKeyBodySchema = v.strictObject({
  graceSeconds: v.picklist(ROLL_GRACES, `must be one of ${ROLL_GRACES.join(', ')}`),
});

/** Body of setPortalKeyPlan: a standard plan (Enterprise is asked for by the contact link). */
export const SetPortalKeyPlanBodySchema = v.strictObject({
  plan: v.picklist(PLAN_IDS, `must be one of ${PLAN_IDS.join(', ')}`),
});
