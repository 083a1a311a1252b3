/** Lambda entry of listAuditEntries (`GET /audit`): `handlers/list-audit-entries.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { listAuditEntriesHandler } from './handlers/list-audit-entries.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return listAuditEntriesHandler(createKeyService(env));
}

/** Lambda handler of listAuditEntries: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
