/** Valibot schemas of the operations' parameters: listPets's query, getPet's path. */
import * as v from 'valibot';
import { PetStatusSchema } from './schemas.ts';

/** Page size of `GET /pets` (docs/openapi.yaml). */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** Query of `GET /pets` (`limit` as text in, a number out); `strictQuery` refuses any other name. */
export const ListPetsQuerySchema = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`),
      v.transform(Number),
      v.minValue(PAGE_LIMIT.min, `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`),
      v.maxValue(PAGE_LIMIT.max, `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`),
    ),
    String(PAGE_LIMIT.default),
  ),
  status: v.optional(PetStatusSchema),
  /** Checked by the handler against its HMAC and `status` (cursor.ts). */
  cursor: v.optional(v.string()),
});

/** Path parameter `petId` of `GET /pets/{petId}`: decimal digits of a positive integer. */
export const PetIdSchema = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a positive integer'),
  v.transform(Number),
  v.minValue(1, 'must be a positive integer'),
);
