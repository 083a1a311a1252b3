/** Lambda entry of listPets (`GET /pets`): `operations/list-pets.ts` on the DynamoDB adapters. */
import { createContainer } from '../shared/container.ts';
import { listPetsHandler } from './operations/list-pets.ts';

/** Lambda handler of listPets: API Gateway REST proxy event in, proxy result out. */
export const handler = listPetsHandler(createContainer());
