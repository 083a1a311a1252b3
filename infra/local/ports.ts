/**
 * TCP port checks of the local stack.
 */

import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import type { SettingName } from '../../shared/settings.ts';
import { LocalStackError, PortInUseError } from './local-stack-errors.ts';

/**
 * Fails fast when a port is taken, before starting something slow that would fail on it.
 * It only probes: another process may still take the port before the caller binds it.
 *
 * @param port The port; 0 (an ephemeral port) always passes.
 * @param host Interface to probe; `0.0.0.0` for a server that listens on every interface.
 * @param service What needs the port, for the message, e.g. `the gateway`.
 * @param envVar The environment variable that picks another port, for the message.
 * @throws PortInUseError when the port is in use.
 */
export async function assertPortFree(
  port: number,
  host: string,
  service: string,
  envVar: SettingName,
): Promise<void> {
  const server = createServer();
  try {
    server.listen(port, host);
    await once(server, 'listening');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new PortInUseError(port, service, envVar);
    }
    throw error;
  } finally {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}

/** A port that is free now on 127.0.0.1 (the kernel's pick of an ephemeral port). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('No TCP address');
  return address.port;
}

/**
 * The ports of the stack's listeners: the public API's (`PORT`), the admin API's (`ADMIN_PORT`)
 * and the developer portal's (`PORTAL_PORT`).
 */
export interface Ports {
  readonly port: number;
  readonly adminPort: number;
  readonly portalPort: number;
}

/**
 * @param dynamoPort DynamoDB Local's port, when the stack starts one.
 * @throws LocalStackError when two of the stack's listeners are given the same port (0 picks a
 *   free one each).
 */
export function assertDistinctPorts(
  { port, adminPort, portalPort }: Ports,
  dynamoPort: number | undefined,
): void {
  const named = [
    ['PORT', port, 'the gateway'],
    ['ADMIN_PORT', adminPort, 'the admin API'],
    ['PORTAL_PORT', portalPort, 'the portal'],
    ['DYNAMODB_PORT', dynamoPort, 'DynamoDB Local'],
  ] as const;
  for (const [index, [name, value, service]] of named.entries()) {
    const same = named.slice(index + 1).find(([, other]) => other === value && value !== 0);
    if (same) {
      throw new LocalStackError(
        `${name} and ${same[0]} are both ${value}: ${service} and ${same[2]} need a port each; set one of them to another port.`,
      );
    }
  }
}

/** @throws PortInUseError naming the variable of a port in use. */
export async function assertPortsFree(
  { port, adminPort, portalPort }: Ports,
  host: string,
): Promise<void> {
  await assertPortFree(port, host, 'the gateway', 'PORT');
  await assertPortFree(adminPort, host, 'the admin API', 'ADMIN_PORT');
  await assertPortFree(portalPort, host, 'the portal', 'PORTAL_PORT');
}

/**
 * Starts `server` on a free port of 127.0.0.1, where neither it nor its connections keep the
 * process alive (an endpoint the stack hands its functions: iam.ts, event-bus.ts).
 * @returns Its URL, `http://127.0.0.1:<port>`.
 */
export async function listenInBackground(server: Server): Promise<string> {
  server.on('connection', (socket) => socket.unref());
  server.listen(0, '127.0.0.1').unref();
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('No TCP address');
  return `http://127.0.0.1:${address.port}`;
}
