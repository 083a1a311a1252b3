/**
 * The settings schema: defaults, empty variables as unset, and start-up errors that name the
 * variable.
 */
import { describe, expect, it } from 'vitest';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { TABLES } from '../../shared/dynamodb/tables.ts';
import {
  readSetting,
  readSettings,
  requiredSetting,
  SettingsSchema,
} from '../../shared/settings.ts';

describe('readSettings', () => {
  it('fills in the defaults of an empty environment', () => {
    expect(readSettings({})).toEqual({
      RATE_LIMIT_BAN_THRESHOLD: 50,
      RATE_LIMIT_BAN_SECONDS: 900,
      RATE_LIMIT_DEADLINE_MS: 5000,
      AUDIT_RETENTION_DAYS: 400,
      PETSTORE_STAGE: 'local',
      PORT: 3000,
      ADMIN_PORT: 3100,
      DYNAMODB_PORT: 8000,
      PORTAL_PORT: 3200,
      PORTAL_AUTH_PORT: 3300,
      PORTAL_API_PORT: 3400,
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: 2773,
      REPLICATION_LAG_MS: 500,
      PORTAL_KEY_LIMIT: 5,
      PORTAL_ENTERPRISE_CONTACT_URL: 'mailto:sales@example.com',
      SECRET_SCANNING_KEYS_URL: 'https://api.github.com/meta/public_keys/secret_scanning',
    });
  });

  it('reads numbers as numbers and treats an empty variable as unset', () => {
    const settings = readSettings({ PORT: '0', RATE_LIMIT_DEADLINE_MS: '', PETS_TABLE_NAME: 'p' });
    expect(settings).toMatchObject({ PORT: 0, RATE_LIMIT_DEADLINE_MS: 5000, PETS_TABLE_NAME: 'p' });
  });

  it('names every invalid variable, one per line', () => {
    expect(() =>
      readSettings({
        PORT: '70000',
        DYNAMODB_ENDPOINT: '127.0.0.1 8000',
        RATE_LIMIT_BAN_THRESHOLD: '0',
      }),
    ).toThrow(
      [
        'Environment variable DYNAMODB_ENDPOINT must be a URL, not "127.0.0.1 8000"',
        'Environment variable RATE_LIMIT_BAN_THRESHOLD must be a whole number >= 1, not "0"',
        'Environment variable PORT must be a port number from 0 to 65535, not "70000"',
      ].join('\n'),
    );
  });

  it('ignores variables it does not know', () => {
    expect(readSettings({ HOME: '/root' })).not.toHaveProperty('HOME');
  });

  it('has an entry for the name variable of every table', () => {
    for (const table of TABLES) expect(Object.keys(SettingsSchema.entries)).toContain(table.envVar);
  });
});

describe('readSetting', () => {
  it('reads one variable, ignoring an invalid other one', () => {
    expect(readSetting('PETSTORE_STAGE', { PETSTORE_STAGE: 'prod', PORT: 'x' })).toBe('prod');
    expect(() => readSetting('PORT', { PORT: '-1' })).toThrow(
      'Environment variable PORT must be a port number from 0 to 65535, not "-1"',
    );
  });
});

describe('requiredSetting', () => {
  it('names the variable a component needs and lacks', () => {
    const settings = readSettings({ KEYS_TABLE_NAME: 'keys' });
    expect(requiredSetting(settings, 'KEYS_TABLE_NAME')).toBe('keys');
    expect(() => requiredSetting(settings, 'PETS_TABLE_NAME')).toThrow(
      'Environment variable PETS_TABLE_NAME is required',
    );
  });
});

describe('createContainer', () => {
  it('builds a DynamoDB Local client only with credentials', () => {
    const local = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' };
    expect(() => createContainer(local)).toThrow(
      'Environment variable AWS_ACCESS_KEY_ID is required',
    );
    const container = createContainer({
      ...local,
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    });
    expect(container.settings.DYNAMODB_ENDPOINT).toBe(local.DYNAMODB_ENDPOINT);
  });
});
