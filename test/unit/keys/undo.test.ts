import { describe, expect, it } from 'vitest';
import { UndoSteps } from '../../../shared/keys/undo.ts';

describe('UndoSteps', () => {
  it('returns what the work returns and undoes nothing when the work succeeds', async () => {
    const undo = new UndoSteps();
    const undone: string[] = [];
    undo.add('delete a', async () => undone.push('a'));

    const result = await undo.run(
      async () => 42,
      () => new Error('not called'),
    );

    expect(result).toBe(42);
    expect(undone).toEqual([]);
  });

  it('undoes the recorded steps newest first when the work fails, and throws what explain builds', async () => {
    const undo = new UndoSteps();
    const undone: string[] = [];
    const failure = new Error('step 3 refused');

    const run = undo.run(
      async () => {
        undo.add('delete a', async () => undone.push('a'));
        undo.add('delete b', async () => undone.push('b'));
        throw failure;
      },
      (error, actions) => new Error(`${error.message}; undone: ${actions.join(', ')}`),
    );

    await expect(run).rejects.toThrow('step 3 refused; undone: delete b, delete a');
    expect(undone).toEqual(['b', 'a']);
  });

  it('goes on undoing past an undo that fails, and names the failure', async () => {
    const undo = new UndoSteps();
    const undone: string[] = [];
    undo.add('delete a', async () => undone.push('a'));
    undo.add('delete b', () => Promise.reject(new Error('b is locked')));
    undo.add('delete c', async () => undone.push('c'));

    const run = undo.run(
      () => Promise.reject(new Error('refused')),
      (_, actions) => new Error(actions.join(', ')),
    );

    await expect(run).rejects.toThrow('delete c, delete b FAILED (b is locked), delete a');
    expect(undone).toEqual(['c', 'a']);
  });
});
