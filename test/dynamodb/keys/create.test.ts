import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../shared/keys/token.ts';
import { PLAN_IDS, PLANS } from '../../../shared/plans.ts';
import { documentClient, keys, keysCommand, tableName } from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it.each(PLAN_IDS)(
    'issues a %s key whose token is the last line of stdout and is stored only as its hash',
    async (plan) => {
      const { code, stdout, token } = await keysCommand(['create', '--plan', plan]);

      expect(code).toBe(0);
      expect(token).toMatch(/^pet_local_[0-9A-Za-z]{38}$/);
      const record = await keys.findByToken(token);
      expect(record).toMatchObject({ plan, keyHash: hashToken(token) });
      expect(record?.owner).toBeUndefined();
      const { perMinute, perDay } = PLANS[plan];
      const summary = stdout.slice(0, -1).join('\n');
      expect(summary).toContain(record?.keyId);
      expect(summary).toContain(
        `${PLANS[plan].name} (${perMinute.toLocaleString('en-US')} requests/minute, ${perDay.toLocaleString('en-US')} requests/day)`,
      );
      expect(summary).toContain('shown once; only its SHA-256 is kept');
      const { Item = {} } = await documentClient.send(
        new GetCommand({ TableName: tableName, Key: { keyHash: hashToken(token) } }),
      );
      expect(Object.values(Item).some((value) => String(value).includes(token))).toBe(false);
    },
  );
});
