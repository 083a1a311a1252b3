/** The next page of a list as a `Link` header, which clients follow and never build. */
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

/**
 * The `Link` header of a page of the admin or portal API after which more follow (RFC 8288): a
 * URI reference relative to the host, the stage's path with the page's query and `cursor`.
 * @param path The list's path under its stage, e.g. `/admin/keys`.
 * @param query The parameters the next page keeps (`limit`, filters), undefined ones left out.
 * @example pageLink('/admin/keys', { limit: 20, owner: 'acme' }, '…') →
 *   `</admin/keys?limit=20&owner=acme&cursor=…>; rel="next"`
 */
export function pageLink(
  path: string,
  query: Readonly<Record<string, string | number | undefined>>,
  cursor: string,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  params.set('cursor', cursor);
  return `<${path}?${params}>; rel="next"`;
}
