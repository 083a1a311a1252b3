/**
 * The restore rehearsed on the local stack: a store with pets and keys, a good copy of it, then
 * deletions, a changed pet, a revoked and a re-scoped key in the live tables.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBAuditLog } from '../../../shared/dynamodb/audit-log.ts';
import { createDocumentClient } from '../../../shared/dynamodb/clients.ts';
import { PET_ID_SEQUENCE_ID } from '../../../shared/dynamodb/id-blocks.ts';
import { KEYS_TABLE, PETS_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import type { Pet } from '../../../shared/pets/schemas.ts';
import { petstoreClient } from '../../support/api-client.ts';
import { api, createPet, gateway, serveLocalApi } from '../../support/local-api.ts';
import { racingClient } from '../../support/racing-client.ts';
import {
  copyTable,
  deleteItem,
  documentClient,
  endpoint,
  liveKey,
  liveTables,
  pointInTime,
  putItem,
  RESTORE_CALLER,
  restoreCommand,
} from '../../support/restore-command.ts';
import { seedKey } from '../../support/test-keys.ts';

serveLocalApi();

const goodPets = `${liveTables.pets}-good`;
const goodKeys = `${liveTables.keys}-good`;
let pets: Pet[];
let deletedKey: { record: ApiKeyRecord; token: string };
let revokedKey: { record: ApiKeyRecord; token: string };
let rescopedKey: { record: ApiKeyRecord; token: string };
let revokedAt: string | undefined;

/** The pets table's item of a pet, as DynamoDB holds it. */
async function storedPet(id: number) {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: liveTables.pets, Key: { id } }),
  );
  return Item;
}

/** The findings of a `--json` run, without the run's other fields. */
async function findings(args: string[]) {
  const { code, stdout } = await restoreCommand([...args, '--json']);
  expect(code).toBe(0);
  return JSON.parse(stdout.join('\n')).findings;
}

beforeAll(async () => {
  pets = [];
  for (const name of ['Rex', 'Tom', 'Kiki', 'Bo']) pets.push(await createPet(name));
  deletedKey = await seedKey({ plan: 'free', owner: 'deleted by hand' });
  revokedKey = await seedKey({ plan: 'pro', owner: 'revoked since' });
  rescopedKey = await seedKey({ plan: 'business', owner: 're-scoped since' });
  await copyTable(PETS_TABLE, liveTables.pets, goodPets);
  await copyTable(KEYS_TABLE, liveTables.keys, goodKeys);
  const [rex, tom, kiki] = pets as [Pet, Pet, Pet];
  await deleteItem(liveTables.pets, { id: rex.id });
  await deleteItem(liveTables.pets, { id: tom.id });
  await putItem(liveTables.pets, { ...(await storedPet(kiki.id)), name: 'Kiki (bad deploy)' });
  await deleteItem(liveTables.keys, { keyHash: deletedKey.record.keyId });
  await deleteItem(liveTables.keys, { keyHash: deletedKey.record.keyHash });
  // Changed since the good copy, as fixtures: their histories stay empty.
  revokedAt = new Date().toISOString();
  await putItem(liveTables.keys, { ...revokedKey.record, revokedAt });
  await putItem(liveTables.keys, { ...rescopedKey.record, scopes: ['pets:read'] });
});

describe('restore on the local stack', () => {
  it('reports exactly the deleted and changed items in a dry run, and writes nothing', async () => {
    const [rex, tom, kiki] = pets as [Pet, Pet, Pet];
    const before = await storedPet(kiki.id);

    expect(await findings(['--table', 'pets', '--from-table', goodPets])).toEqual([
      {
        subject: `pet ${rex.id}`,
        state: 'missing',
        changes: ['put back (Rex, available)'],
        kept: [],
      },
      {
        subject: `pet ${tom.id}`,
        state: 'missing',
        changes: ['put back (Tom, available)'],
        kept: [],
      },
      {
        subject: `pet ${kiki.id}`,
        state: 'differs',
        changes: [],
        kept: ['name differ: the live pet stays (--overwrite puts the good copy back)'],
      },
    ]);
    const keyFindings = await findings(['--table', 'keys', '--from-table', goodKeys]);
    expect(
      keyFindings.sort((a: { subject: string }, b: { subject: string }) =>
        a.subject.localeCompare(b.subject),
      ),
    ).toEqual(
      [
        {
          subject: `key ${deletedKey.record.keyId}`,
          state: 'missing',
          changes: ['put back: head and 1 token (Free)'],
          kept: [],
        },
        {
          subject: `key ${revokedKey.record.keyId}`,
          state: 'differs',
          changes: [],
          kept: [`revoked in the live table at ${revokedAt}: stays revoked`],
        },
        {
          subject: `key ${rescopedKey.record.keyId}`,
          state: 'differs',
          changes: [],
          kept: ['narrower scope in the live table (pets:read): it stays'],
        },
      ].sort((a, b) => a.subject.localeCompare(b.subject)),
    );
    expect(await storedPet(rex.id)).toBeUndefined();
    expect(await storedPet(kiki.id)).toEqual(before);
    expect(await liveKey(deletedKey.record.keyId)).toBeUndefined();
  });

  it('says what it would do in lines, the summary last', async () => {
    const { code, stdout } = await restoreCommand(['--table', 'pets', '--from-table', goodPets]);

    expect(code).toBe(0);
    expect(stdout[0]).toBe(
      `pets of the local stack (DynamoDB Local at ${endpoint}): live table ${liveTables.pets}, good copy ${goodPets}.`,
    );
    expect(stdout[1]).toMatch(/^missing {2}pet \d+: +would be put back \(Rex, available\)$/);
    expect(stdout.at(-1)).toBe(
      'Dry run, nothing written: 2 missing, 1 differing: 2 to write, 1 left as is (--apply writes).',
    );
  });

  it('puts back the deleted pets and key with --apply, leaving the revocation and the narrower scope in force', async () => {
    const [rex, tom, kiki] = pets as [Pet, Pet, Pet];

    const petsRun = await restoreCommand(['--table', 'pets', '--from-table', goodPets, '--apply']);
    const keysRun = await restoreCommand(['--table', 'keys', '--from-table', goodKeys, '--apply']);

    expect([petsRun.code, keysRun.code]).toEqual([0, 0]);
    expect(petsRun.stdout.at(-1)).toBe(
      '2 missing, 1 differing: 2 written, 1 left as is, 0 changed since the comparison, 0 failed.',
    );
    expect(keysRun.stdout.at(-1)).toBe(
      '1 missing, 2 differing: 1 written, 2 left as is, 0 changed since the comparison, 0 failed.',
    );
    const got = await api.GET('/pets/{petId}', { params: { path: { petId: rex.id } } });
    expect(got.data).toEqual(rex);
    const listed = await api.GET('/pets', { params: { query: { limit: 100 } } });
    expect(listed.data).toEqual(expect.arrayContaining([rex, tom]));
    expect(listed.data).toContainEqual({ ...kiki, name: 'Kiki (bad deploy)' });
    const restoredKey = petstoreClient(gateway.url, deletedKey.token);
    expect(
      (await restoredKey.GET('/pets/{petId}', { params: { path: { petId: tom.id } } })).response
        .status,
    ).toBe(200);
    const revoked = petstoreClient(gateway.url, revokedKey.token);
    expect((await revoked.GET('/pets')).response.status).toBe(401);
    const readOnly = petstoreClient(gateway.url, rescopedKey.token);
    const refused = await readOnly.POST('/pets', { body: { name: 'Nope', categoryId: 1 } });
    expect(refused.response.status).toBe(403);
  });

  it('finds nothing to write on a second run', async () => {
    const petsRun = await restoreCommand(['--table', 'pets', '--from-table', goodPets, '--apply']);
    const keysRun = await restoreCommand(['--table', 'keys', '--from-table', goodKeys, '--apply']);

    expect([petsRun.code, keysRun.code]).toEqual([0, 0]);
    expect(petsRun.stdout.at(-1)).toBe(
      '0 missing, 1 differing: 0 written, 1 left as is, 0 changed since the comparison, 0 failed.',
    );
    expect(keysRun.stdout.at(-1)).toBe(
      '0 missing, 2 differing: 0 written, 2 left as is, 0 changed since the comparison, 0 failed.',
    );
    // A good copy given by name is the operator's: never deleted (nor anything else asked of AWS).
    expect(pointInTime.calls()).toEqual([]);
  });

  it('records each key it put back in one key.restored entry, by the principal running it', async () => {
    // GIVEN the two runs above: one key put back, two left as is
    const audit = new DynamoDBAuditLog(createDocumentClient(), liveTables.audit, 400);

    // WHEN the keys' histories are read
    const [restored, revoked, rescoped] = await Promise.all(
      [deletedKey, revokedKey, rescopedKey].map(({ record }) => audit.history(record.keyId)),
    );

    // THEN the key put back has exactly one entry, written with it, and the others none
    expect(restored).toEqual([
      expect.objectContaining({
        event: 'key.restored',
        keyId: deletedKey.record.keyId,
        actor: { type: 'iam', id: RESTORE_CALLER },
        userAgent: 'petstore restore command',
        requestId: expect.stringMatching(/^restore-/),
        changes: expect.objectContaining({
          plan: { after: 'free' },
          owner: { after: 'deleted by hand' },
        }),
      }),
    ]);
    expect(JSON.stringify(restored)).not.toContain(deletedKey.record.keyHash);
    expect([revoked, rescoped]).toEqual([[], []]);
  });

  it('never overwrites a pet changed after the comparison; a run again completes', async () => {
    const kiki = (pets as Pet[])[2] as Pet;
    const changedMeanwhile = { ...(await storedPet(kiki.id)), name: 'Kiki (renamed meanwhile)' };
    const racing = racingClient(
      () => putItem(liveTables.pets, changedMeanwhile),
      (input) => 'Item' in input,
    );
    const args = ['--table', 'pets', '--from-table', goodPets, '--apply', '--overwrite'];

    const raced = await restoreCommand(args, racing);

    expect(raced.code).toBe(1);
    expect(raced.stdout).toContainEqual(
      expect.stringMatching(/NOT WRITTEN: changed since the comparison, run again$/),
    );
    expect(await storedPet(kiki.id)).toEqual(changedMeanwhile);
    const again = await restoreCommand(args);
    expect(again.code).toBe(0);
    expect((await api.GET('/pets/{petId}', { params: { path: { petId: kiki.id } } })).data).toEqual(
      kiki,
    );
  });

  it('never overwrites a pet put back by someone else after the comparison', async () => {
    const bo = (pets as Pet[])[3] as Pet;
    const stored = await storedPet(bo.id);
    await deleteItem(liveTables.pets, { id: bo.id });
    const putBackMeanwhile = { ...stored, name: 'Bo (put back by hand)' };
    const racing = racingClient(
      () => putItem(liveTables.pets, putBackMeanwhile),
      (input) => 'Item' in input,
    );

    const raced = await restoreCommand(
      ['--table', 'pets', '--from-table', goodPets, '--apply'],
      racing,
    );

    expect(raced.code).toBe(1);
    expect(await storedPet(bo.id)).toEqual(putBackMeanwhile);
  });

  it('raises the id sequence when the whole table was lost, so ids stay unique', async () => {
    const { Item: good } = await documentClient.send(
      new GetCommand({ TableName: goodPets, Key: { id: PET_ID_SEQUENCE_ID } }),
    );
    for (const pet of pets) await deleteItem(liveTables.pets, { id: pet.id });
    await deleteItem(liveTables.pets, { id: PET_ID_SEQUENCE_ID });

    const { code, stdout } = await restoreCommand([
      '--table',
      'pets',
      '--from-table',
      goodPets,
      '--apply',
    ]);

    expect(code).toBe(0);
    expect(stdout).toContain(`pet id sequence raised from none to ${good?.value}`);
    expect((await storedPet(PET_ID_SEQUENCE_ID))?.value).toBe(good?.value);
  });

  it('fails with exit status 1 naming a good copy that does not exist', async () => {
    const { code, stderr } = await restoreCommand([
      '--table',
      'keys',
      '--from-table',
      'no-such-table',
    ]);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `restore: No table no-such-table on the local stack (DynamoDB Local at ${endpoint}) to take the good copy from.`,
    ]);
  });
});
