/**
 * A confirmation in a modal `<dialog>`: the browser keeps focus inside it, Escape cancels, and
 * the page behind it is inert.
 */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  /** The dialog's heading, its accessible name. */
  readonly title: string;
  /** What confirming does, in a sentence or two. */
  readonly message: string;
  /** The confirming button's name, e.g. `Revoke key`. */
  readonly confirm: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}

/** Shown while mounted; Cancel, Escape or confirming closes it. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return html`<dialog ref=${dialog} aria-labelledby="dialog-title" onCancel=${props.onCancel}>
    <h2 id="dialog-title">${props.title}</h2>
    <p>${props.message}</p>
    <div class="actions">
      <button type="button" class="danger" onClick=${props.onConfirm}>${props.confirm}</button>
      <button type="button" onClick=${props.onCancel}>Cancel</button>
    </div>
  </dialog>`;
}
