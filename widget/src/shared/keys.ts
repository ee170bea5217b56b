/**
 * Enter in a text box, one rule wherever it is typed: Enter sends (the composer) or saves
 * (the edit box), Shift+Enter is a new line, and the Enter that confirms an IME
 * composition (Chinese, Japanese input) does neither.
 */

/**
 * Whether a keydown sends: Enter without Shift, and never the Enter that confirms an IME
 * composition. `composing` is what the box's composition events said: Safari fires
 * `compositionend` before that Enter's keydown, which then has keyCode 229 alone.
 */
export function isSendKey(event: KeyboardEvent, composing: boolean): boolean {
  if (event.key !== 'Enter' || event.shiftKey) return false;
  return !(event.isComposing || composing || event.keyCode === 229);
}

/** The text boxes in the middle of a composition, as their composition events tell. */
const composing = new WeakSet<EventTarget>();

/**
 * The listeners that make Enter submit a small form's text box (the edit box) as Enter
 * sends from the composer: the form's own submit handler runs, as for its button.
 */
export const enterSubmits = {
  keydown(event: KeyboardEvent): void {
    const box = event.currentTarget as HTMLTextAreaElement;
    if (!isSendKey(event, composing.has(box))) return;
    event.preventDefault();
    box.form?.requestSubmit();
  },
  compositionstart: (event: Event): void => void composing.add(event.currentTarget!),
  compositionend: (event: Event): void => void composing.delete(event.currentTarget!),
};
