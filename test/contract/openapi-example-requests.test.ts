/**
 * docs/openapi.yaml's examples make valid requests: one request per operation, built from the
 * document as tools that test an API from its examples do (Dredd; Swagger UI's "Try it out"), is
 * answered with the operation's documented 2xx by the local gateway with a valid key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createPet, send, serveLocalApi, token } from '../support/local-api.ts';
import {
  at,
  documentedOperations,
  exampleOf,
  type Node,
  parameters,
} from '../support/openapi-document.ts';

/** The request a tool builds from the document for one operation. */
function exampleRequest(path: string, operation: Node) {
  let target = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  for (const parameter of parameters(String(operation.operationId))) {
    const value = exampleOf(parameter);
    if (value === undefined) {
      expect(parameter.required, `${operation.operationId} ${parameter.name}`).not.toBe(true);
      continue;
    }
    const name = String(parameter.name);
    if (parameter.in === 'path') target = target.replace(`{${name}}`, String(value));
    if (parameter.in === 'query') query.append(name, String(value));
    if (parameter.in === 'header') headers[name] = String(value);
  }
  const media = operation.requestBody
    ? at(operation, 'requestBody', 'content', 'application/json')
    : undefined;
  if (media) headers['Content-Type'] = 'application/json';
  return {
    path: query.size > 0 ? `${target}?${query}` : target,
    headers,
    body: media ? JSON.stringify(exampleOf(media)) : undefined,
  };
}

describe('docs/openapi.yaml', () => {
  serveLocalApi();
  // getPet's example id names a pet that exists: the store's 7th.
  beforeAll(async () => {
    for (let i = 1; i <= 7; i++) await createPet(`pet ${i}`);
  });

  describe.each(documentedOperations())(
    'the example request of $method $path',
    ({ method, path, operation }) => {
      it('is answered with its documented 2xx', async () => {
        const request = exampleRequest(path, operation);
        const [success] = Object.keys(operation.responses as Node).filter((s) => /^2/.test(s));
        const { response, body } = await send(method.toUpperCase(), request.path, request);
        expect(`${response.status} ${JSON.stringify(body)}`).toMatch(new RegExp(`^${success} `));
      });
    },
  );
});
