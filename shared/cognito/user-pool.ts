/** The `AccountDirectory` port on Cognito's AdminDeleteUser (the local stack: its stand-in). */
import {
  AdminDeleteUserCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { boundedClientConfig } from '../eventbridge/eventbridge-publisher.ts';
import type { AccountDirectory } from '../portal/portal-ports.ts';
import { requiredSetting, type Settings } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';

/** The portal's user pool (`PORTAL_USER_POOL_ID`), as an account deletes itself. */
export class CognitoUserPool implements AccountDirectory {
  constructor(
    private readonly client: CognitoIdentityProviderClient,
    private readonly userPoolId: string,
  ) {}

  /**
   * The pool of the settings, through `COGNITO_ENDPOINT` (the local stand-in, with the settings'
   * credentials) or AWS in the function's region; calls bounded as DynamoDB's.
   * @throws Error naming the variable when one is missing.
   */
  static from(settings: Settings): CognitoUserPool {
    const client = new CognitoIdentityProviderClient(
      boundedClientConfig(settings, settings.COGNITO_ENDPOINT),
    );
    return new CognitoUserPool(client, requiredSetting(settings, 'PORTAL_USER_POOL_ID'));
  }

  async deleteAccount(sub: string): Promise<void> {
    // In a pool that signs in by email, an account's username is its sub.
    const command = new AdminDeleteUserCommand({ UserPoolId: this.userPoolId, Username: sub });
    try {
      await unlessUnavailable(() => this.client.send(command));
    } catch (error) {
      if (!(error instanceof UserNotFoundException)) throw error;
    }
  }
}
