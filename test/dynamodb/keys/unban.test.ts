import { describe, expect, it } from 'vitest';
import { ban, bans, keysCommand, seedKey, useDeployedStage } from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('lifts the ban of a banned key and says until when it would have run', async () => {
    const { record } = await seedKey({ plan: 'free' });
    const bannedUntil = await ban(record.keyId);
    expect(await bans.banState(record.keyId, Date.now())).toEqual({ bannedUntil });

    const { code, stdout } = await keysCommand(['unban', record.keyId]);

    expect(code).toBe(0);
    expect(stdout).toEqual([
      `Lifted the ban on key ${record.keyId}; it would have run until ${new Date(bannedUntil * 1000).toISOString()}.`,
    ]);
    expect(await bans.banState(record.keyId, Date.now())).toBeUndefined();
  });

  it('says so when unbanning a key that is not banned', async () => {
    const { record } = await seedKey({ plan: 'free' });

    const { code, stdout } = await keysCommand(['unban', record.keyId]);

    expect(code).toBe(0);
    expect(stdout).toEqual([`Key ${record.keyId} is not banned; nothing to lift.`]);
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it("lifts a ban in the stage's counters table", async () => {
    const { record } = await seedKey({ plan: 'free' });
    await ban(record.keyId);

    const { code, stdout } = await keysCommand(['unban', record.keyId, '--stage', 'staging']);

    expect(code).toBe(0);
    expect(stdout).toEqual([expect.stringMatching(`^Lifted the ban on key ${record.keyId};`)]);
    expect(await bans.banState(record.keyId, Date.now())).toBeUndefined();
  });
});
