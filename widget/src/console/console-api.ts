/**
 * The owner's console API (`/admin/api/*` on the same server), typed. The browser sends
 * the HttpOnly login cookie itself (`credentials: 'same-origin'`); the page never sees
 * it. Any answer may be 401 (the login expired, or the token changed): that is
 * `LoggedOut`, which sends the page back to its login form.
 */
import type { ChatMessage } from '@aalis/protocol/client';

export type Rating = 'up' | 'down';

/** A person was asked for (`waiting`) or answers (`active`); absent is the model's. */
export type HandoffState = 'waiting' | 'active';

/** What the server says of the login and of itself (`GET /session`). */
export interface ConsoleSessionInfo {
  /** A person may answer conversations (PROTOCOL.md section 8): replies and the live view exist. */
  handoffOffered?: boolean;
}

/** A conversation as the list shows it. */
export interface ConversationRow {
  sessionId: string;
  /** `user:<sub>` or `anon:<id>`; null for a conversation from before owners were kept. */
  visitorId: string | null;
  anonymous: boolean;
  startedAt: number;
  lastAt: number;
  messageCount: number;
  rating?: Rating;
  /** A person was asked for (`waiting`) or answers (`active`). */
  handoff?: HandoffState;
}

export interface ConversationPage {
  /** Most recently active first. */
  conversations: ConversationRow[];
  /** An opaque cursor to the next page, when there may be one. */
  next?: string;
}

export interface ConversationQuery {
  q?: string;
  rating?: Rating;
  handoff?: HandoffState;
  limit?: number;
  cursor?: string;
}

/** A conversation read whole, oldest message first. */
export interface ArchivedConversation {
  sessionId: string;
  visitorId: string | null;
  startedAt: number;
  messages: ChatMessage[];
}

/** One day of the stats (`date` is `YYYY-MM-DD`). */
export interface DayStats {
  date: string;
  turns: number;
  visitors: number;
  tokens: { input: number; output: number };
  costUsd?: number;
  errors: Record<string, number>;
  feedback: { up: number; down: number };
  tools: Record<string, { calls: number; failures: number }>;
}

/** Both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

export type ExportFormat = 'csv' | 'jsonl';

/** The login is gone: the page shows its form again. */
export class LoggedOut extends Error {
  constructor() {
    super('Your login has ended: log in again.');
    this.name = 'LoggedOut';
  }
}

/** Any other refusal or failure, with the server's words when it gave some. */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }
}

export class ConsoleApi {
  /** `base` is where the API lives, `/admin/api` on the server that serves the page. */
  constructor(public base = '/admin/api') {}

  /** What the server offers while the browser holds a valid login; null without one. */
  async session(): Promise<ConsoleSessionInfo | null> {
    try {
      return await this.#json<ConsoleSessionInfo>('/session');
    } catch (error) {
      if (error instanceof LoggedOut) return null;
      throw error;
    }
  }

  /** Sets the login cookie; a wrong token (401) or too many tries (429) throw with the server's words. */
  async login(token: string): Promise<void> {
    // A 401 here is a wrong token, not an ended login: it must not read as one.
    await this.#request('/login', { method: 'POST', body: JSON.stringify({ token }) }, false);
  }

  async logout(): Promise<void> {
    await this.#request('/logout', { method: 'POST', body: '{}' });
  }

  conversations(query: ConversationQuery): Promise<ConversationPage> {
    return this.#json(`/conversations${search({ ...query, limit: query.limit?.toString() })}`);
  }

  conversation(sessionId: string): Promise<ArchivedConversation> {
    return this.#json(`/conversations/${encodeURIComponent(sessionId)}`);
  }

  stats(range: DayRange): Promise<{ days: DayStats[] }> {
    return this.#json(`/stats${search({ ...range })}`);
  }

  /** Erases everything of the visitor: its conversations, feedback and images. */
  async eraseVisitor(visitorId: string): Promise<void> {
    await this.#request(`/visitors/${encodeURIComponent(visitorId)}`, { method: 'DELETE' });
  }

  /** A person's reply (`operator` the name the visitor sees; the server's default without it). */
  async reply(sessionId: string, text: string, operator?: string): Promise<ChatMessage> {
    const body = JSON.stringify(operator ? { text, operator } : { text });
    const path = `/conversations/${encodeURIComponent(sessionId)}/messages`;
    const answer = (await (await this.#request(path, { method: 'POST', body })).json()) as {
      message: ChatMessage;
    };
    return answer.message;
  }

  /** The conversation goes back to the model. */
  async release(sessionId: string): Promise<void> {
    const path = `/conversations/${encodeURIComponent(sessionId)}/release`;
    await this.#request(path, { method: 'POST', body: '{}' });
  }

  /** The conversation live, as Server-Sent Events of its frames (for an `EventSource`). */
  eventsUrl(sessionId: string): string {
    return `${this.base}/conversations/${encodeURIComponent(sessionId)}/events`;
  }

  /** Where the transcripts of the range download from (a plain link: the browser saves the file). */
  exportUrl(range: DayRange, format: ExportFormat): string {
    return `${this.base}/transcripts${search({ ...range, format })}`;
  }

  async #json<T>(path: string): Promise<T> {
    return (await this.#request(path)).json() as Promise<T>;
  }

  async #request(path: string, init: RequestInit = {}, endsLogin = true): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.base + path, { ...init, headers, credentials: 'same-origin' });
    if (response.ok) return response;
    if (response.status === 401 && endsLogin) throw new LoggedOut();
    throw new ConsoleApiError(response.status, await errorOf(response));
  }
}

/** What to tell the owner of a failed request. */
export function failureText(error: unknown): string {
  if (error instanceof LoggedOut || error instanceof ConsoleApiError) return error.message;
  // fetch rejects only when no answer came at all.
  return 'The server cannot be reached: check the connection and try again.';
}

/** The query string of the values that are set (empty ones are left out). */
function search(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The server's `{error}`, else a sentence that says at least the status. */
async function errorOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
}
