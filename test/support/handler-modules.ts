/**
 * An operation's modules as docs/architecture.md ("Adding an operation") lays them out: its route
 * row's `entry` `functions/<name>.ts` builds on `functions/handlers/<name>.ts`, which exports the
 * handler factory `<operationId>Handler(container)`. Tests find an operation's handler from its row
 * through these, instead of listing the operations.
 */
import { basename } from 'node:path';
import type { RouteDefinition } from '../../infra/routes.ts';
import type { HttpHandler } from '../../shared/http/handler.ts';
import type { InMemoryContainer } from './in-memory-container.ts';

/** A route's handler module, from the repository's root: `functions/handlers/<entry's name>`. */
export function handlerModuleOf(route: Pick<RouteDefinition, 'entry'>): string {
  return `functions/handlers/${basename(route.entry)}`;
}

/** The handler factory a handler module exports: `<operationId>Handler`. */
export function handlerFactoryName(route: Pick<RouteDefinition, 'operationId'>): string {
  return `${route.operationId}Handler`;
}

/**
 * A route's handler factory, imported from its handler module.
 *
 * @throws Error naming the module when it exports no such function.
 */
export async function handlerFactoryOf(
  route: Pick<RouteDefinition, 'entry' | 'operationId'>,
): Promise<(container: InMemoryContainer) => HttpHandler> {
  const module: Record<string, unknown> = await import(
    new URL(`../../${handlerModuleOf(route)}`, import.meta.url).href
  );
  const factory = module[handlerFactoryName(route)];
  if (typeof factory !== 'function') {
    throw new Error(`${handlerModuleOf(route)} exports no ${handlerFactoryName(route)}`);
  }
  return factory as (container: InMemoryContainer) => HttpHandler;
}
