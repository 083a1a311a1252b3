import { describe, expect, it } from 'vitest';
import { planPets } from '../../../infra/cli/restore/rules.ts';
import { PET_ID_SEQUENCE_ID } from '../../../shared/dynamodb/id-blocks.ts';
import { petItem, statusShardOf } from '../../../shared/dynamodb/pet-item.ts';

const createdAt = Date.parse('2026-11-20T10:00:00Z');
const rex = petItem({ id: 7, name: 'Rex', categoryId: 1, status: 'available' }, createdAt);
const tom = petItem({ id: 9, name: 'Tom', categoryId: 2, status: 'sold' }, createdAt);
const sequence = (value: number) => ({ id: PET_ID_SEQUENCE_ID, value });

describe('restore rules of the pets table', () => {
  it('puts back a missing pet with its index attribute, and nothing else', () => {
    const { statusShard: _lost, ...damaged } = tom;

    const { findings } = planPets([sequence(9), rex, damaged], [sequence(9), rex], {
      overwrite: false,
    });

    expect(findings).toEqual([
      {
        subject: 'pet 9',
        state: 'missing',
        changes: ['put back (Tom, sold)'],
        kept: [],
        writes: [{ item: { ...tom, statusShard: statusShardOf('sold', 9) } }],
      },
    ]);
  });

  it('reports a pet that differs and writes it only with --overwrite, on the live item as compared', () => {
    const renamed = {
      ...rex,
      name: 'Rexy',
      status: 'pending',
      statusShard: statusShardOf('pending', 7),
    };

    const reported = planPets([rex], [renamed], { overwrite: false }).findings;
    const overwritten = planPets([rex], [renamed], { overwrite: true }).findings;

    expect(reported).toEqual([
      {
        subject: 'pet 7',
        state: 'differs',
        changes: [],
        kept: [
          'name, status, statusShard differ: the live pet stays (--overwrite puts the good copy back)',
        ],
        writes: [],
      },
    ]);
    expect(overwritten[0]?.writes).toEqual([{ item: rex, expected: renamed }]);
  });

  it('finds nothing when the live table holds the good copy, and never copies the sequence back', () => {
    const plan = planPets([sequence(5), rex], [sequence(80), rex], { overwrite: true });

    expect(plan).toEqual({ findings: [] });
  });

  it.each([
    ['lost', [], 20],
    ['below the good copy', [sequence(3)], 20],
    ['below a restored id', [sequence(3)], 9, [sequence(2), rex, tom]],
  ])(
    'raises the id sequence when it is %s',
    (_case, liveSequence, to, good = [sequence(20), rex, tom]) => {
      const plan = planPets(good, [...liveSequence, rex], { overwrite: false });

      expect(plan.sequence).toEqual({ live: liveSequence[0]?.value, to });
    },
  );
});
