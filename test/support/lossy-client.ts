/**
 * A DynamoDB client for tests of lost answers: the write lands, its answer does not arrive in
 * time, and the SDK retries it.
 */
import { grantedEndpoint } from '../../infra/local/iam.ts';
import type { FunctionDefinition } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';

/**
 * A client whose first `commandName` call (e.g. `PutItemCommand`) lands but whose answer is lost (a timeout the SDK
 * retries), as happens when DynamoDB answers after the attempt's deadline.
 *
 * @param role A function whose IAM grants hold the client (its endpoint: infra/local/iam.ts).
 */
export async function clientLosingFirstAnswer(commandName: string, role: FunctionDefinition) {
  const lossy = createDocumentClient({ endpoint: await grantedEndpoint(role) });
  let lost = false;
  lossy.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === commandName && !lost) {
        lost = true;
        throw Object.assign(new Error('answer lost'), { name: 'TimeoutError' });
      }
      return result;
    },
    { step: 'deserialize', name: 'loseFirstAnswer' },
  );
  return lossy;
}
