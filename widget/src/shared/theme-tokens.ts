/**
 * The public theme tokens (`--aalis-*`, documented and stable) mapped to private ones
 * (`--_*`) on a component's own `:host`, with the light and dark defaults. Each of the
 * widget's elements includes it, so none reads another's private variables: a page
 * theming `--aalis-color-accent` on any ancestor reaches every element, and an element
 * with `theme="dark"` (or `auto` on a dark system) takes the dark defaults.
 */
import { css } from 'lit';

const darkDefaults = css`
  --_bg: var(--aalis-color-background, #111113);
  --_fg: var(--aalis-color-text, #edeef0);
  --_muted: var(--aalis-color-muted, #b0b4ba);
  --_accent: var(--aalis-color-accent, #5b7ff3);
  /* White on the light accent is 3.6:1: dark text passes AA (5.2:1). */
  --_accent-fg: var(--aalis-color-accent-text, #111113);
  --_border: var(--aalis-color-border, #2e3135);
  --_warning: var(--aalis-color-warning, #ffa057);
  --_danger: var(--aalis-color-danger, #ff9592);
  --_assistant-bg: var(--aalis-bubble-assistant-background, #212225);
  --_operator-bg: var(--aalis-bubble-operator-background, #132d21);
  --_card-bg: var(--aalis-card-background, #18191b);
  color-scheme: dark;
`;

export const themeTokens = css`
  :host {
    --_bg: var(--aalis-color-background, #ffffff);
    --_fg: var(--aalis-color-text, #1c2024);
    --_muted: var(--aalis-color-muted, #60646c);
    --_accent: var(--aalis-color-accent, #3e63dd);
    --_accent-fg: var(--aalis-color-accent-text, #ffffff);
    --_border: var(--aalis-color-border, #dfe3e6);
    --_warning: var(--aalis-color-warning, #ad5700);
    --_danger: var(--aalis-color-danger, #ce2c31);
    --_user-bg: var(--aalis-bubble-user-background, var(--_accent));
    --_user-fg: var(--aalis-bubble-user-text, var(--_accent-fg));
    --_assistant-bg: var(--aalis-bubble-assistant-background, #f1f3f5);
    --_assistant-fg: var(--aalis-bubble-assistant-text, var(--_fg));
    --_operator-bg: var(--aalis-bubble-operator-background, #e6f6eb);
    --_operator-fg: var(--aalis-bubble-operator-text, var(--_fg));
    --_card-bg: var(--aalis-card-background, #ffffff);
    --_card-border: var(--aalis-card-border, var(--_border));
    --_font: var(--aalis-font-family, system-ui, -apple-system, 'Segoe UI', sans-serif);
    --_mono: var(--aalis-font-mono, ui-monospace, 'SFMono-Regular', Menlo, monospace);
    --_size: var(--aalis-font-size, 15px);
    --_radius: var(--aalis-radius, 12px);
    --_space: var(--aalis-spacing, 12px);
    --_max-width: var(--aalis-max-width, 760px);
    --_height: var(--aalis-height, 600px);
    color-scheme: light;
  }
  :host([theme='dark']) {
    ${darkDefaults}
  }
  @media (prefers-color-scheme: dark) {
    :host([theme='auto']) {
      ${darkDefaults}
    }
  }
`;
