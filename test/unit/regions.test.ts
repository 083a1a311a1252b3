/** The stage's regions (`PETSTORE_REGIONS`) and the keys of the items each region writes. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keyServiceOn } from '../../functions/admin/composition-root.ts';
import { KeyService } from '../../shared/keys/key-service.ts';
import { ONE_REGION, othersNames, regionalName, regionsOf } from '../../shared/regions.ts';
import { readSettings } from '../../shared/settings.ts';

const TWO = { PETSTORE_REGIONS: 'us-east-1,eu-west-1' };
const SEVENTEEN = Array.from({ length: 17 }, (_, n) => `r${n}`).join(',');

describe('regionsOf', () => {
  it('is one region, keys as before regions, when PETSTORE_REGIONS is unset or names one', () => {
    expect(regionsOf(readSettings({ AWS_REGION: 'eu-west-1' }))).toBe(ONE_REGION);
    expect(regionsOf(readSettings({ PETSTORE_REGIONS: 'us-east-1' }))).toBe(ONE_REGION);
    expect(regionalName('rate#key_1#2026-11-21', ONE_REGION)).toBe('rate#key_1#2026-11-21');
    expect(othersNames('rate#key_1#2026-11-21', ONE_REGION)).toEqual([]);
  });

  it('places the function by AWS_REGION, the home region first', () => {
    expect(regionsOf(readSettings({ ...TWO, AWS_REGION: 'us-east-1' }))).toEqual({
      names: ['us-east-1', 'eu-west-1'],
      own: 0,
    });
    expect(regionsOf(readSettings({ ...TWO, AWS_REGION: 'eu-west-1' })).own).toBe(1);
  });

  it('names a region item by its writer: the home region keeps the bare key', () => {
    const home = regionsOf(readSettings({ ...TWO, AWS_REGION: 'us-east-1' }));
    const other = regionsOf(readSettings({ ...TWO, AWS_REGION: 'eu-west-1' }));

    expect(regionalName('k#1', home)).toBe('k#1');
    expect(regionalName('k#1', other)).toBe('k#1@eu-west-1');
    expect(othersNames('k#1', home)).toEqual(['k#1@eu-west-1']);
    expect(othersNames('k#1', other)).toEqual(['k#1']);
  });

  it.each([
    ['AWS_REGION is not among them', { ...TWO, AWS_REGION: 'ap-south-1' }],
    ['AWS_REGION is unset', TWO],
    ['a region is named twice', { PETSTORE_REGIONS: 'a,b,a', AWS_REGION: 'a' }],
    ['more than 16 are named', { PETSTORE_REGIONS: SEVENTEEN, AWS_REGION: 'r0' }],
  ])('refuses a function of several regions when %s', (_, env) => {
    expect(() => regionsOf(readSettings(env))).toThrow(
      /^PETSTORE_REGIONS \(.*\) must name at most 16 regions, each once, AWS_REGION \(.*\) among them$/,
    );
  });
});

describe('the keys table in several regions', () => {
  const serviceIn = (region: string) =>
    keyServiceOn({
      settings: readSettings({
        ...TWO,
        AWS_REGION: region,
        KEYS_TABLE_NAME: 'keys',
        AUDIT_TABLE_NAME: 'audit',
        COUNTERS_TABLE_NAME: 'counters',
      }),
      client: {} as DynamoDBDocumentClient,
    });

  it('is administered in the home region only: a key and its head have one writer', () => {
    expect(serviceIn('us-east-1')).toBeInstanceOf(KeyService);
    expect(() => serviceIn('eu-west-1')).toThrow(
      'Keys are administered in the home region us-east-1 only, not in eu-west-1',
    );
  });
});

describe('PETSTORE_REGIONS', () => {
  it.each(['us-east-1,,eu-west-1', 'US-EAST-1', 'us-east-1;eu-west-1'])('refuses %j', (value) => {
    expect(() => regionsOf(readSettings({ PETSTORE_REGIONS: value }))).toThrow(
      `Environment variable PETSTORE_REGIONS must be region names separated by commas, not "${value}"`,
    );
  });

  it('reads names separated by commas, spaces around them ignored', () => {
    expect(regionsOf(readSettings({ PETSTORE_REGIONS: 'a, b', AWS_REGION: 'b' }))).toEqual({
      names: ['a', 'b'],
      own: 1,
    });
  });
});
