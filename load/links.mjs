/**
 * Artillery processor of load/petstore.yml: pages listPets of one status from its first page,
 * following `Link: <…>; rel="next"` as a client does (RFC 8288), for at most `LOAD_MAX_PAGES` pages
 * (default 5). Artillery's `whileTrue` loop tests after each pass, so the first page is the loop's
 * first pass. Plain ESM:
 * Artillery bundles a TypeScript processor into CommonJS, which this "type": "module" package
 * cannot load.
 */

const MAX_PAGES = Number(process.env.LOAD_MAX_PAGES ?? 5);

/** The first page: 20 pets of the status whose index partition is the hot one. */
const FIRST_PAGE = '/pets?status=available&limit=20';

/**
 * `function` step: the virtual user's paging starts at {@link FIRST_PAGE}.
 *
 * @param {{ vars: Record<string, unknown> }} context
 * @param {unknown} _events
 * @param {() => void} done
 */
export function firstPage(context, _events, done) {
  context.vars.next = FIRST_PAGE;
  context.vars.pages = 0;
  done();
}

/**
 * `afterResponse` hook: the virtual user's `next` becomes the next page's absolute URL (the link
 * resolved against the request's, as the server may send a path), or undefined on the last page;
 * `pages` counts the pages read.
 *
 * @param {{ url: string }} request
 * @param {{ headers: Record<string, string | string[] | undefined> }} response
 * @param {{ vars: Record<string, unknown> }} context
 * @param {unknown} _events
 * @param {() => void} done
 */
export function followLink(request, response, context, _events, done) {
  const link = [response.headers.link ?? []].flat().join(', ');
  const target = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1];
  context.vars.next = target === undefined ? undefined : new URL(target, request.url).href;
  context.vars.pages = Number(context.vars.pages ?? 0) + 1;
  done();
}

/**
 * `whileTrue` of the paging loop: while there is a next page and no more than the cap were read.
 *
 * @param {{ vars: Record<string, unknown> }} context
 * @param {(more: boolean) => void} next
 */
export function hasNextPage(context, next) {
  next(context.vars.next !== undefined && Number(context.vars.pages) < MAX_PAGES);
}
