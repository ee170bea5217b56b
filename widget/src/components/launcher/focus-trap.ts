/**
 * Keeps Tab inside a dialog: from its last focusable element Tab goes to its first, and
 * Shift+Tab from its first to its last. The dialog lives in a shadow root, so the active
 * element is the root's, not the document's.
 */
const FOCUSABLE =
  'button:not([disabled]), textarea:not([disabled]), input:not([disabled]), select:not([disabled]), a[href], summary, [tabindex="0"]';

export function keepTabInside(event: KeyboardEvent, dialog: HTMLElement, active: Element | null): void {
  if (event.key !== 'Tab') return;
  const focusable = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (element) => element.getClientRects().length > 0,
  );
  const first = focusable[0];
  const last = focusable.at(-1);
  if (!first || !last) return;
  const leaving = event.shiftKey ? active === first || !dialog.contains(active) : active === last;
  if (!leaving) return;
  event.preventDefault();
  (event.shiftKey ? last : first).focus();
}
