/**
 * A wide table's wrapper (`.table-wrap`, `overflow-x: auto`) becomes a named region in the
 * tab order while, and only while, its table is wider than it: a keyboard user can then
 * focus it and scroll with the arrow keys, and a table that fits adds no stop to Tab.
 * Whether it fits changes with the chat's width and as a streamed table grows, so both
 * the wrapper and its table are watched for size.
 */
import { noChange } from 'lit';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit/directive.js';

/** The wrappers' labels ("Table, scrolls sideways"), in the chat's language. */
const labels = new WeakMap<Element, string>();

const observer =
  typeof ResizeObserver === 'undefined'
    ? undefined
    : new ResizeObserver((entries) => {
        for (const { target } of entries) {
          // Removed with its message: nothing to watch any more (a removed box reports 0×0).
          if (!target.isConnected) observer!.unobserve(target);
          else mark(labels.has(target) ? target : target.parentElement!);
        }
      });

function mark(wrap: Element): void {
  const label = labels.get(wrap);
  if (label === undefined) return;
  if (wrap.scrollWidth > wrap.clientWidth) {
    wrap.setAttribute('tabindex', '0');
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('aria-label', label);
  } else {
    for (const name of ['tabindex', 'role', 'aria-label']) wrap.removeAttribute(name);
  }
}

class ScrollRegion extends Directive {
  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('scrollRegion() goes on an element');
  }

  render(_label: string): unknown {
    return noChange;
  }

  override update(part: ElementPart, [label]: [string]): unknown {
    const wrap = part.element;
    labels.set(wrap, label);
    // Observing again is a no-op; the first observation reports at once.
    observer?.observe(wrap);
    if (wrap.firstElementChild) observer?.observe(wrap.firstElementChild);
    return noChange;
  }
}

/** On a scrolling wrapper: `<div class="table-wrap" ${scrollRegion(label)}>`. */
export const scrollRegion = directive(ScrollRegion);
