/** The API's addresses, written once: the stage and the resource paths (docs/openapi.yaml). */

/** Name of the deployment stage: the version segment that ends the base URL. */
export const API_STAGE_NAME = 'v1';

export const PETS_PATH = '/pets';

/** One pet; `petId` is its id. */
export const PET_PATH = '/pets/{petId}';

/**
 * A path as a client sends it: the stage, then `path` with each `{name}` from `parameters`.
 * @example stagePath(PET_PATH, { petId: 7 }) → `/v1/pets/7`
 */
export function stagePath(path: string, parameters: Record<string, number | string> = {}): string {
  return `/${API_STAGE_NAME}${path.replace(/\{(\w+)\}/g, (_, name: string) => String(parameters[name]))}`;
}
