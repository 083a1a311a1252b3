/** Undoing a key change that failed half-way: no key is left half-made or half-moved. */
import { ApiGatewayStepError } from './key-errors.ts';

/** The undo actions of the steps done so far, run newest first when a later step fails. */
export class UndoSteps {
  private readonly steps: { readonly action: string; readonly undo: () => Promise<unknown> }[] = [];

  /** Records a succeeded step's undo. @param action E.g. `delete API Gateway API key x`. */
  add(action: string, undo: () => Promise<unknown>): void {
    this.steps.push({ action, undo });
  }

  /**
   * Runs `work`; if it throws, runs every undo, newest first (a failed one stops none: each skipped
   * would leave more behind), and throws `explain`'s error.
   * @param explain Gets one phrase per undo: its action, or its action and `FAILED (reason)`.
   */
  async run<T>(
    work: () => Promise<T>,
    explain: (failure: Error, undone: readonly string[]) => Error,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const undone: string[] = [];
      for (const { action, undo } of [...this.steps].reverse()) {
        await undo().then(
          () => undone.push(action),
          (undoError: Error) => undone.push(`${action} FAILED (${undoError.message})`),
        );
      }
      throw explain(error as Error, undone);
    }
  }
}

/** An `UndoSteps` explanation of a failed API Gateway step (its own ApiGatewayStepError is one already). */
export function stepFailed(what: string, outcome: string) {
  return (failure: Error, undone: readonly string[]) =>
    failure instanceof ApiGatewayStepError && undone.length === 0
      ? failure
      : new ApiGatewayStepError(
          `${what} (${failure.message}); undone: ${undone.join(', ') || 'nothing'}. ${outcome}`,
          { cause: failure },
        );
}

/** The keys table's failure after API Gateway's steps were undone, naming them. */
export function undoneAfter(failure: Error, undone: readonly string[]): Error {
  if (undone.length > 0) {
    failure.message = `${failure.message} (undone on API Gateway: ${undone.join(', ')})`;
  }
  return failure;
}
