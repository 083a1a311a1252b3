/** Lambda entry of createPet (`POST /pets`): `operations/create-pet.ts` on the DynamoDB adapters. */
import { createContainer } from '../shared/container.ts';
import { createPetHandler } from './operations/create-pet.ts';

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = createPetHandler(createContainer());
