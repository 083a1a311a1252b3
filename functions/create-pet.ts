/**
 * `POST /pets` (operation `createPet`; petstore-spec.md, "Endpoints").
 *
 * Body: NewPet as `application/json` (UTF-8), at most 16 KiB. 201 with the Pet and
 * `Location: /v1/pets/{id}`; 400 `invalid_json` or `invalid_body`, 413, 415 otherwise.
 *
 * With an `Idempotency-Key` header the create runs at most once per key and API key (see
 * `shared/idempotency/`): a repeat replays the first answer. A store that fails or does not answer
 * in time gives 503 with `Retry-After`; the message says whether the pet may exist.
 */
import { createContainer } from '../shared/container.ts';
import { httpHandler } from '../shared/http/handler.ts';
import { jsonBody } from '../shared/http/json-body.ts';
import { isDependencyFailure, serviceUnavailable } from '../shared/http/unavailable.ts';
import { parseOrThrow } from '../shared/http/validation.ts';
import { idempotencyKeyOf, requestFingerprint } from '../shared/idempotency/key.ts';
import { proxyResult, runIdempotent } from '../shared/idempotency/run.ts';
import { DynamoDBIdempotencyStore, type StoredResponse } from '../shared/idempotency/store.ts';
import { NewPetSchema, type Pet } from '../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../shared/pets/store.ts';
import { authorizedKey } from '../shared/rate-limit/middleware.ts';
import { requiredSetting } from '../shared/settings.ts';

const container = createContainer();
const store = petStoreFromEnv(container);
const idempotency = new DynamoDBIdempotencyStore(
  container.client,
  requiredSetting(container.settings, 'IDEMPOTENCY_TABLE_NAME'),
);

/** The 201 of a created pet. */
function created(pet: Pet): StoredResponse {
  return {
    statusCode: 201,
    headers: { Location: `/v1/pets/${pet.id}` },
    body: JSON.stringify(pet),
  };
}

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = httpHandler(
  async function createPet(event, context, { signal }) {
    const key = idempotencyKeyOf(event);
    const newPet = parseOrThrow(NewPetSchema, event.body, 'body', 'invalid_body');
    try {
      if (key === undefined) return proxyResult(created(await store.createPet(newPet, { signal })));
      const request = {
        id: `${authorizedKey(event).keyId}#${key}`,
        fingerprint: requestFingerprint(event.body),
        lockedUntil: Date.now() + context.getRemainingTimeInMillis(),
        signal,
      };
      return await runIdempotent(idempotency, request, async (complete) => {
        const pet = await store.createPet(newPet, {
          signal,
          alsoWrite: (stored) => complete(created(stored)),
        });
        return created(pet);
      });
    } catch (error) {
      if (!isDependencyFailure(error)) throw error;
      throw serviceUnavailable(
        key === undefined
          ? 'The store did not confirm the create: the pet may or may not have been created. Send an Idempotency-Key with every POST so that a retry is safe.'
          : 'The store did not confirm the create. Retry with the same Idempotency-Key: the retry answers with the pet if it was created, or creates it.',
        error,
      );
    }
  },
  { container, body: jsonBody() },
);
