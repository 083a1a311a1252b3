/** Valibot schemas of the resources (docs/openapi.yaml; the gaps: docs/api.md). */
import * as v from 'valibot';

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

/** Status given to a pet created without one. */
export const DEFAULT_PET_STATUS = 'available';

/** Longest accepted `name`, in Unicode code points. */
export const PET_NAME_MAX_LENGTH = 100;

export const PetStatusSchema = v.picklist(PET_STATUSES, 'must be one of available, pending, sold');

/** `id` and `categoryId`: integers a JSON number carries exactly (1 to 2^53 − 1). */
const PositiveSafeIntegerSchema = v.pipe(
  v.number('must be an integer'),
  v.integer('must be an integer'),
  v.minValue(1, 'must be at least 1'),
  v.maxValue(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`),
);

/** A UTF-16 surrogate that is not half of a pair: JSON can carry it, UTF-8 storage cannot. */
const LONE_SURROGATE = /\p{Cs}/u;

/** `name`: 1 to 100 code points, not all white space, well-formed Unicode. */
const PetNameSchema = v.pipe(
  v.string('must be a string'),
  v.regex(/\S/u, 'must contain at least one non-space character'),
  v.check(
    (name) => !LONE_SURROGATE.test(name),
    'must not contain a lone UTF-16 surrogate (such as \\ud800): it is half of a character and cannot be stored',
  ),
  v.check(
    (name) => [...name].length <= PET_NAME_MAX_LENGTH,
    `must be at most ${PET_NAME_MAX_LENGTH} characters`,
  ),
);

/** Request body of `POST /pets`. Unknown fields are rejected. */
export const NewPetSchema = v.strictObject({
  name: PetNameSchema,
  categoryId: PositiveSafeIntegerSchema,
  status: v.optional(PetStatusSchema, DEFAULT_PET_STATUS),
});

/** An animal as returned. */
export const PetSchema = v.strictObject({
  id: PositiveSafeIntegerSchema,
  name: PetNameSchema,
  categoryId: PositiveSafeIntegerSchema,
  status: PetStatusSchema,
});

export type PetStatus = v.InferOutput<typeof PetStatusSchema>;
/** A validated createPet body; `status` is filled in with its default. */
export type NewPet = v.InferOutput<typeof NewPetSchema>;
export type Pet = v.InferOutput<typeof PetSchema>;
