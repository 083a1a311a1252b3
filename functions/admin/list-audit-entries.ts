/** Lambda entry of listAuditEntries (`GET /audit`): `operations/list-audit-entries.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { listAuditEntriesHandler } from './operations/list-audit-entries.ts';

/** Lambda handler of listAuditEntries: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = listAuditEntriesHandler(createKeyOperations());
