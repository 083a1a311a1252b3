/** Lambda entry of getPet (`GET /pets/{petId}`): `operations/get-pet.ts` on the DynamoDB adapters. */
import { createContainer } from '../shared/container.ts';
import { getPetHandler } from './operations/get-pet.ts';

/** Lambda handler of getPet: API Gateway REST proxy event in, proxy result out. */
export const handler = getPetHandler(createContainer());
