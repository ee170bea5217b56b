/**
 * The composer's text box takes the height of its text, up to its CSS max-height where it
 * scrolls; while empty, the height of its placeholder, so that a long one (a shop's "Ask
 * about a lamp or an order…" in a launcher's panel on a phone) wraps whole instead of
 * being cut after its first line.
 */
import { noChange } from 'lit';
import { Directive, directive, type ElementPart } from 'lit/directive.js';

/**
 * Fits the box to what it shows. Its height counts its borders (border-box) and
 * `scrollHeight` does not: without them the box fell 2 px short at every line, and
 * scrolled inside from the second line on.
 */
export function fitToText(textarea: HTMLTextAreaElement): void {
  // Not laid out (the launcher's panel closed): there is no width to wrap lines at.
  if (!textarea.offsetWidth) return;
  textarea.style.height = 'auto';
  const borders = textarea.offsetHeight - textarea.clientHeight;
  textarea.style.height = `${contentHeight(textarea) + borders}px`;
}

/**
 * The height of the box's text; of an empty box, that of its placeholder. Engines differ on
 * whether `scrollHeight` counts a placeholder's lines, so it is measured as the text of a
 * hidden twin of the box, the same width and the same styles.
 */
function contentHeight(textarea: HTMLTextAreaElement): number {
  if (textarea.value || !textarea.placeholder) return textarea.scrollHeight;
  const twin = textarea.cloneNode() as HTMLTextAreaElement;
  twin.value = textarea.placeholder;
  twin.setAttribute('aria-hidden', 'true');
  twin.tabIndex = -1;
  twin.style.cssText = `position: absolute; visibility: hidden; height: auto; width: ${textarea.offsetWidth}px`;
  textarea.after(twin);
  const height = Math.max(twin.scrollHeight, textarea.scrollHeight);
  twin.remove();
  return height;
}

/** The width each box was last fitted at: a new one re-wraps its lines. */
const fittedWidths = new WeakMap<Element, number>();

const observer =
  typeof ResizeObserver === 'undefined'
    ? undefined
    : new ResizeObserver((entries) => {
        for (const { target, contentRect } of entries) {
          if (!target.isConnected) observer!.unobserve(target);
          else if (fittedWidths.get(target) !== contentRect.width) {
            fittedWidths.set(target, contentRect.width);
            // Next frame: a height changed inside this callback would be a resize loop.
            requestAnimationFrame(() => fitToText(target as HTMLTextAreaElement));
          }
        }
      });

/**
 * On the text box: fits it when it is first laid out, when its width changes (the panel
 * opens, the page turns) and when its placeholder does. What changes its text fits it
 * itself: typing (`input`), and the composer when it clears or restores the draft.
 */
class FitToPlaceholder extends Directive {
  #placeholder: string | undefined;

  render(_placeholder: string): unknown {
    return noChange;
  }

  override update(part: ElementPart, [placeholder]: [string]): unknown {
    const box = part.element as HTMLTextAreaElement;
    observer?.observe(box);
    if (this.#placeholder !== undefined && placeholder !== this.#placeholder)
      // After this render has set the new placeholder.
      queueMicrotask(() => fitToText(box));
    this.#placeholder = placeholder;
    return noChange;
  }
}

export const fitToPlaceholder = directive(FitToPlaceholder);
