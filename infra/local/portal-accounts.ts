/**
 * The accounts of the local stand-in for the portal's user pool (docs/local-stack.md, "The
 * portal"): each an email, a password kept as a scrypt hash, a `sub` and whether the email is
 * verified, with the 6-digit code that verifies it. Kept in `<stack directory>/portal-accounts.json`
 * (or in memory), read and written whole: a laptop's handful of accounts.
 */
import { randomInt, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The shortest password, as the stage's user pool requires. */
export const MIN_PASSWORD_LENGTH = 12;

/** An account as the stand-in keeps it. */
export interface LocalAccount {
  readonly sub: string;
  readonly email: string;
  /** `scrypt:<salt hex>:<hash hex>`. */
  readonly password: string;
  readonly verified: boolean;
  /** The code that verifies the email, until it does. */
  readonly code?: string;
}

/** Why a sign-up, a verification or a sign-in is refused, for the page to say. */
export class AccountRefusal extends Error {
  override readonly name = 'AccountRefusal';
}

/** The stand-in's accounts, in a file of the stack's directory or in memory. */
export class PortalAccounts {
  private readonly accounts: Map<string, LocalAccount>;

  /** @param directory The stack's directory. @default - in memory */
  constructor(private readonly directory?: string) {
    const file = this.file();
    const stored =
      file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalAccount[]) : [];
    this.accounts = new Map(stored.map((account) => [account.sub, account]));
  }

  /**
   * A new account with an unverified email, and the code that verifies it.
   * @throws AccountRefusal for an invalid email, a short password or an email already signed up.
   */
  signUp(email: string, password: string): { account: LocalAccount; code: string } {
    const normalized = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(normalized)) {
      throw new AccountRefusal('Enter an email address, e.g. dev@example.com.');
    }
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new AccountRefusal(`The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    if (this.byEmail(normalized)) throw new AccountRefusal('An account with this email exists.');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const account: LocalAccount = {
      sub: randomUUID(),
      email: normalized,
      password: hashPassword(password),
      verified: false,
      code,
    };
    this.save(account);
    return { account, code };
  }

  /** Verifies the email of `email`'s account. @throws AccountRefusal for a wrong code. */
  verify(email: string, code: string): LocalAccount {
    const account = this.byEmail(email.trim().toLowerCase());
    if (!account || account.verified || account.code !== code.trim()) {
      throw new AccountRefusal('This code does not verify this email.');
    }
    const { code: _code, ...rest } = account;
    const verified = { ...rest, verified: true };
    this.save(verified);
    return verified;
  }

  /**
   * The account of `email` when `password` is its password and its email is verified.
   * @throws AccountRefusal otherwise (an unverified email says so).
   */
  signIn(email: string, password: string): LocalAccount {
    const account = this.byEmail(email.trim().toLowerCase());
    if (!account || !passwordMatches(password, account.password)) {
      throw new AccountRefusal('The email or the password is wrong.');
    }
    if (!account.verified) throw new AccountRefusal('Verify your email first.');
    return account;
  }

  /** The account `sub`, or `undefined`. */
  find(sub: string): LocalAccount | undefined {
    return this.accounts.get(sub);
  }

  /** Removes the account `sub`. @returns Whether there was one. */
  delete(sub: string): boolean {
    const existed = this.accounts.delete(sub);
    this.write();
    return existed;
  }

  private byEmail(email: string): LocalAccount | undefined {
    return [...this.accounts.values()].find((account) => account.email === email);
  }

  private save(account: LocalAccount): void {
    this.accounts.set(account.sub, account);
    this.write();
  }

  private file(): string | undefined {
    return this.directory && join(this.directory, 'portal-accounts.json');
  }

  private write(): void {
    const file = this.file();
    if (file)
      writeFileSync(file, JSON.stringify([...this.accounts.values()], null, 2), { mode: 0o600 });
  }
}

/** `scrypt:<salt>:<hash>` of `password` with a fresh salt. */
function hashPassword(password: string): string {
  const salt = randomUUID().replaceAll('-', '');
  return `scrypt:${salt}:${scryptSync(password, salt, 32).toString('hex')}`;
}

/** Whether `password` hashes to `stored`, compared in constant time. */
function passwordMatches(password: string, stored: string): boolean {
  const [, salt = '', hash = ''] = stored.split(':');
  const expected = Buffer.from(hash, 'hex');
  const actual = scryptSync(password, salt, expected.length || 32);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
