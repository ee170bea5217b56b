/**
 * Escape for a small form inside the chat (an edit, a comment, a name): it closes that
 * form and goes no further, so the launcher's panel around it stays open.
 */
export const onEscape =
  (close: () => void) =>
  (event: KeyboardEvent): void => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    close();
  };
