/**
 * The login form: the admin token (AALIS_ADMIN_TOKEN) in a password field, which a
 * password manager may fill. The token is sent once, to `POST /login`, and never kept by
 * the page: the server answers with an HttpOnly cookie.
 */
import { html, nothing, type TemplateResult } from 'lit';

export interface LoginState {
  /** Why the form shows again, or why the last try failed. */
  error: string;
  busy: boolean;
  /** Still asking the server whether the browser is logged in. */
  checking: boolean;
}

export function renderLogin(state: LoginState, login: (token: string) => void): TemplateResult {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('token') as HTMLInputElement;
    if (field.value) login(field.value);
  };
  if (state.checking) return html`<p class="note" role="status">Checking your login…</p>`;
  return html`<form class="login" part="login" @submit=${submit}>
    <h1>Aalis console</h1>
    <p class="note">The server's admin token (<code>AALIS_ADMIN_TOKEN</code>) opens it.</p>
    <label for="token">Admin token</label>
    <input
      id="token"
      name="token"
      type="password"
      autocomplete="current-password"
      required
      aria-invalid=${state.error ? 'true' : 'false'}
      aria-describedby=${state.error ? 'login-error' : nothing}
    />
    <p id="login-error" class="error" role="alert">${state.error}</p>
    <button type="submit" class="primary" ?disabled=${state.busy}>
      ${state.busy ? 'Logging in…' : 'Log in'}
    </button>
  </form>`;
}
