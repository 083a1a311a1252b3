/** Lambda entry of the authorizer: `operations/authorizer.ts` on the DynamoDB key store. */
import { createContainer } from '../shared/container.ts';
import { authorizerHandler } from './operations/authorizer.ts';

/** Lambda handler of the authorizer. */
export const handler = authorizerHandler(createContainer());
