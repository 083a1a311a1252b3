/** The next page of listPets as a `Link` header, which clients follow and never build. */
import { PETS_PATH, stagePath } from '../paths.ts';
import type { PetStatus } from '../pets/schemas.ts';

/**
 * The `Link` header of a page after which more pets exist (RFC 8288): a URI reference to the next
 * page, relative to the host, keeping `limit` and `status`.
 *
 * @example nextPageLink({ limit: 50, status: 'sold' }, '…') → `</v1/pets?limit=50&status=sold&cursor=…>; rel="next"`
 */
export function nextPageLink(query: { limit: number; status?: PetStatus }, cursor: string): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.status) params.set('status', query.status);
  params.set('cursor', cursor);
  return `<${stagePath(PETS_PATH)}?${params}>; rel="next"`;
}
