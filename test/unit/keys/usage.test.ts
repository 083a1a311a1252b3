import { describe, expect, it } from 'vitest';
import {
  commandsOf,
  flagsNamed,
  listsOption,
  mandatoryArguments,
  optionFlags,
  programOf,
  takersOf,
} from '../../support/command-usage.ts';
import { keysCommand } from '../../support/in-memory-keys-command.ts';

describe('keys command on the local stack', () => {
  it("names with --help every command and, in each command's --help, every option its definition holds", async () => {
    const help = await keysCommand(['--help']);
    const program = await programOf(() => keysCommand(['--help']));

    expect([help.code, help.stderr]).toEqual([0, []]);
    const subcommands = commandsOf(program).filter(({ path }) => path.length > 0);
    expect(subcommands.length).toBeGreaterThan(0);
    for (const { path, command } of subcommands) {
      expect(help.stdout.join('\n')).toContain(`  ${path.join(' ')} `);
      const own = await keysCommand([...path, '--help']);
      expect([path, own.code, own.stderr]).toEqual([path, 0, []]);
      for (const flag of optionFlags(command)) {
        expect([path, flag, listsOption(own.stdout.join('\n'), flag)]).toEqual([path, flag, true]);
      }
    }
  });

  it('takes every option its help names, in some command', async () => {
    const { stdout } = await keysCommand(['--help']);
    const program = await programOf(() => keysCommand(['--help']));
    const named = flagsNamed(stdout.join('\n'));

    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((flag) => takersOf(program, flag).length === 0)).toEqual([]);
  });

  it('exits 2 naming an unknown option, for every command, changing nothing', async () => {
    const program = await programOf(() => keysCommand(['--help']));

    for (const { path, command } of commandsOf(program).filter(({ path }) => path.length > 0)) {
      const args = [
        ...path,
        ...mandatoryArguments(command, { '--since': '1d' }),
        '--no-such-option',
      ];
      const { code, stderr } = await keysCommand(args);
      expect([path, code, stderr[0]]).toEqual([
        path,
        2,
        "keys: error: unknown option '--no-such-option'",
      ]);
    }
  });

  it('says in its help when a change reaches requests', async () => {
    const { stdout } = await keysCommand(['--help']);

    expect(stdout.join('\n')).toContain('within 60 s');
  });

  const enterprise = ['--plan', 'enterprise'];
  it.each([
    {
      args: ['create', '--plan', 'gold'],
      message: 'Unknown plan "gold": use one of free, pro, business, enterprise.',
    },
    { args: ['create'], message: 'create needs --plan free|pro|business|enterprise.' },
    {
      args: ['create', '--plan', 'free', '--owner', ' '],
      message: '--owner must be non-blank text without control characters.',
    },
    {
      args: ['create', '--plan', 'free', '--owner', 'a\nb'],
      message: '--owner must be non-blank text without control characters.',
    },
    {
      args: ['create', '--plan', 'free', 'extra'],
      message: "error: too many arguments for 'create'. Expected 0 arguments but got 1: extra.",
    },
    {
      args: ['create', ...enterprise],
      message: 'Invalid limits: an Enterprise key needs its own per-minute and per-day limits.',
    },
    {
      args: ['create', ...enterprise, '--per-minute', '100'],
      message: 'Invalid limits: an Enterprise key needs its own per-minute and per-day limits.',
    },
    {
      args: ['create', ...enterprise, '--per-day', '1000'],
      message: 'Invalid limits: an Enterprise key needs its own per-minute and per-day limits.',
    },
    {
      args: ['create', '--plan', 'pro', '--per-minute', '100', '--per-day', '1000'],
      message:
        "Invalid limits: a Pro key has its plan's limits; only an Enterprise key has its own.",
    },
    {
      args: ['set-plan', 'key_0000000000000000', '--plan', 'free', '--per-day', '1000'],
      message:
        "Invalid limits: a Free key has its plan's limits; only an Enterprise key has its own.",
    },
    ...['ten', '1.5', '0', '1e3', '0x10', '600001'].map((perMinute) => ({
      args: ['create', ...enterprise, '--per-minute', perMinute, '--per-day', '1000000'],
      message: 'Invalid limits: per-minute limit must be a whole number from 1 to 600000.',
    })),
    {
      args: ['create', ...enterprise, '--per-minute', '100', '--per-day', '99'],
      message:
        'Invalid limits: per-day limit must be a whole number from the per-minute limit (100) to 864000000.',
    },
    {
      args: [
        'set-plan',
        'key_0000000000000000',
        ...enterprise,
        '--per-minute',
        '100',
        '--per-day',
        '9e9',
      ],
      message:
        'Invalid limits: per-day limit must be a whole number from the per-minute limit (100) to 864000000.',
    },
    {
      args: ['create', ...enterprise, '--per-minute', '-5', '--per-day', '10'],
      message: 'Invalid limits: per-minute limit must be a whole number from 1 to 600000.',
    },
    { args: ['set-plan', '--plan', 'pro'], message: "error: missing required argument 'key-id'" },
    {
      args: ['set-plan', 'key_0000000000000000'],
      message: 'set-plan needs --plan free|pro|business|enterprise.',
    },
    {
      args: ['set-plan', 'key_0000000000000000', '--plan', 'pro', '--owner', 'x'],
      message: "error: unknown option '--owner'",
    },
    { args: ['revoke'], message: "error: missing required argument 'key-id'" },
    { args: ['unban'], message: "error: missing required argument 'key-id'" },
    {
      args: ['unban', 'key_0000000000000000', 'key_1111111111111111'],
      message:
        "error: too many arguments for 'unban'. Expected 1 argument but got 2: key_0000000000000000, key_1111111111111111.",
    },
    {
      args: ['revoke', 'key_0000000000000000', '--per-day', '5'],
      message: "error: unknown option '--per-day'",
    },
    {
      args: ['list', '--stage', 'qa'],
      message: 'Unknown stage "qa": use one of staging, production.',
    },
    {
      args: ['list', '--plan', 'free'],
      message: "error: unknown option '--plan'",
    },
    { args: ['list', '--verbose'], message: "error: unknown option '--verbose'" },
    {
      args: ['rotate'],
      message:
        'Unknown command "rotate": use create, list, roll, set-expiry, set-plan, set-scope, revoke, unban, usage, history, audit or check.',
    },
    {
      args: [],
      message:
        'Give a command: create, list, roll, set-expiry, set-plan, set-scope, revoke, unban, usage, history, audit or check.',
    },
  ])('answers $args with a usage error and exit status 2', async ({ args, message }) => {
    const { code, stdout, stderr } = await keysCommand(args);

    expect(code).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr[0]).toBe(`keys: ${message}`);
    expect(stderr).toContain('Usage: npm run keys -- <command> [options]');
  });
});
