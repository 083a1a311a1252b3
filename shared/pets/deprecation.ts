/** Headers of the deprecated `getPet` operation (docs/openapi.yaml, `getPet`). */
import { PETS_PATH, stagePath } from '../paths.ts';

/** When `GET /pets/{petId}` was deprecated: 2026-11-21T00:00:00Z, in Unix seconds. */
export const GET_PET_DEPRECATED_AT = 1_795_219_200;

/** When `GET /pets/{petId}` is removed, as the spec says: 5 December 2030. */
export const GET_PET_SUNSET = new Date(Date.UTC(2030, 11, 5));

/**
 * `Deprecation` (RFC 9745, `@` + Unix seconds), `Sunset` (RFC 8594, HTTP date) and a `Link` to
 * the replacement, `GET /v1/pets` with the `status` filter.
 */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${GET_PET_DEPRECATED_AT}`,
  Sunset: GET_PET_SUNSET.toUTCString(),
  Link: `<${stagePath(PETS_PATH)}>; rel="successor-version"`,
};
