/**
 * docs/openapi.yaml against the code on createPet's Idempotency-Key: the header's pattern and
 * examples against the keys the code accepts, how long a key is kept and what it is scoped to,
 * Idempotent-Replayed on the 201, and 409 and 422 on createPet only.
 */
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
} from '../../shared/http/idempotency-key.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/http/rate-limit-headers.ts';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/record.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import {
  at,
  description,
  documentedOperations,
  headersOf,
  type Node,
  operation,
  parameters,
  prose,
  resolve,
  responses,
} from '../support/openapi-document.ts';

/** The document's operationIds other than createPet's, the one that takes an Idempotency-Key. */
const otherOperations = () =>
  documentedOperations()
    .map(({ operation }) => String(operation.operationId))
    .filter((operationId) => operationId !== 'createPet');

describe('docs/openapi.yaml', () => {
  describe('Idempotency-Key', () => {
    const header = () =>
      parameters('createPet').find((parameter) => parameter.name === IDEMPOTENCY_KEY_HEADER);
    /** Whether the code takes `value` as a key (it throws ApiError 400 otherwise). */
    const accepted = (value: string) => {
      const event = authorizedEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: value },
      });
      try {
        return idempotencyKeyOf(event) !== undefined;
      } catch {
        return false;
      }
    };

    it('is an optional header of createPet only', () => {
      expect(header()).toMatchObject({ in: 'header', required: false });
      for (const operationId of otherOperations()) {
        expect(parameters(operationId).map((parameter) => parameter.name)).not.toContain(
          IDEMPOTENCY_KEY_HEADER,
        );
      }
    });

    it('has the pattern of the keys the code accepts, quoted or not, up to its longest', () => {
      const pattern = new RegExp(at(header(), 'schema').pattern as string, 'u');
      const longest = 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH);
      const values = [
        '8e03978e-40d5-43e8-bc93-6894a57f9324',
        '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
        'a"b',
        '"a\\"b\\\\c"',
        '~!#$%&*+-.^_`|',
        longest,
        `"${longest}"`,
        `"${'\\"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH)}"`,
        `${longest}k`,
        `"${longest}k"`,
        `"${'\\"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1)}"`,
        '',
        '""',
        '"',
        '"open',
        'two words',
        '"two words"',
        'clé',
        '"a\\b"',
        'tab\there',
      ];
      for (const value of values) {
        expect(pattern.test(value), JSON.stringify(value)).toBe(accepted(value));
      }
      expect(values.filter(accepted).length).toBeGreaterThanOrEqual(8);
    });

    it('gives an example the code accepts, for tools that build requests (Dredd)', () => {
      const examples = [
        header()?.example as string,
        ...Object.values((header()?.examples ?? {}) as Node).map(
          (example) => resolve(example).value as string,
        ),
      ];
      expect(header()?.example).toBeDefined();
      for (const example of examples) expect(accepted(example), example).toBe(true);
    });

    it('states how long a key is kept and that it is scoped to the API key', () => {
      const hours = IDEMPOTENCY_RECORD_TTL_SECONDS / 3600;
      for (const text of [prose(header() as Node), description()]) {
        expect(text).toContain(`kept for ${hours} hours after the first request`);
        expect(text).toContain('scoped to the API key');
      }
    });

    it('declares Idempotent-Replayed on the 201 of createPet as an optional `true`', () => {
      const created = headersOf(at(operation('createPet'), 'responses', '201'));
      expect(created[IDEMPOTENT_REPLAYED_HEADER]).toMatchObject({
        required: false,
        schema: { type: 'string', const: 'true' },
      });
    });

    it('documents 409 with Retry-After and 422 on createPet only', () => {
      const statuses = (operationId: string) => responses(operationId).map(([status]) => status);
      expect(statuses('createPet')).toEqual(expect.arrayContaining(['409', '422']));
      for (const operationId of otherOperations()) {
        expect(statuses(operationId)).not.toContain('409');
        expect(statuses(operationId)).not.toContain('422');
      }
      const conflict = at(operation('createPet'), 'responses', '409');
      expect(conflict['x-error-codes']).toEqual(['idempotency_request_in_progress']);
      expect(headersOf(conflict)[RATE_LIMIT_HEADERS.retryAfter]).toMatchObject({ required: true });
      expect(at(operation('createPet'), 'responses', '422')['x-error-codes']).toEqual([
        'idempotency_key_reused',
      ]);
    });
  });
});
