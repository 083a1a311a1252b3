/**
 * The API's addresses, written once: the stage, whose name is the version segment that ends the
 * base URL, and the resource paths relative to it (docs/openapi.yaml's `paths`). The route table
 * and the stack read them, and so do the functions' `Location` and `Link` headers.
 */

/** Name of the deployment stage: the version segment that ends the base URL. */
export const API_STAGE_NAME = 'v1';

/** The collection of pets (listPets, createPet). */
export const PETS_PATH = '/pets';

/** One pet (getPet); `petId` is its id. */
export const PET_PATH = '/pets/{petId}';

/**
 * A path as a client sends it, relative to the host: the stage, then `path` with each `{name}`
 * replaced by `parameters[name]`.
 *
 * @example stagePath(PET_PATH, { petId: 7 }) → `/v1/pets/7`
 */
export function stagePath(path: string, parameters: Record<string, number | string> = {}): string {
  return `/${API_STAGE_NAME}${path.replace(/\{(\w+)\}/g, (_, name: string) => String(parameters[name]))}`;
}
