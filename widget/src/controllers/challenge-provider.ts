/**
 * A bot challenge provider's script (Cloudflare Turnstile, hCaptcha), loaded only when the
 * server asks for a challenge: never before, and once per page whatever the number of
 * chats on it. Both providers have the same explicit-render API, `render(element, {
 * sitekey, callback, 'error-callback' })` on their global, and `remove(id)`.
 *
 * This module is a file of its own in the script-tag build (`aalis-chat-challenge-provider.js`),
 * which challenge.ts imports when a challenge is first asked. It imports nothing but
 * types: a part that imported from the main file would name it by its address, and a page
 * that loaded `aalis-chat.js?v=2` would then load the whole widget a second time.
 */
import type { Challenge } from '@aalis/protocol/client';

interface ProviderApi {
  render(container: HTMLElement, options: object): string | undefined;
  remove?(widgetId: string): void;
}

/** Each script's loading, by the address loaded: a second chat (or challenge) waits on the first. */
const loading = new Map<string, Promise<ProviderApi>>();
let loads = 0;

const providerApi = (provider: Challenge['provider']): ProviderApi | undefined => {
  const api = (globalThis as unknown as Record<string, ProviderApi | undefined>)[provider];
  return typeof api?.render === 'function' ? api : undefined;
};

/** The provider's API, its script loaded first when the page does not have it yet. */
function loadProvider({ provider, scriptUrl }: Challenge): Promise<ProviderApi> {
  // A page that draws the provider's widgets itself already has it: a second copy of the
  // script would be a second instance of the provider, which Turnstile warns about.
  const present = providerApi(provider);
  if (present) return Promise.resolve(present);
  let loaded = loading.get(scriptUrl);
  if (!loaded) {
    loaded = inject(provider, scriptUrl);
    loading.set(scriptUrl, loaded);
    // A script that failed (offline, blocked) is tried again at the next challenge.
    loaded.catch(() => loading.delete(scriptUrl));
  }
  return loaded;
}

function inject(provider: Challenge['provider'], scriptUrl: string): Promise<ProviderApi> {
  return new Promise((resolve, reject) => {
    const globals = globalThis as unknown as Record<string, unknown>;
    const onload = `aalisChallengeLoaded${++loads}`;
    // Ready at the script's `load` or at the provider's own `onload=` call, whichever
    // finds the API first: hCaptcha documents the callback for scripts loaded `async`.
    const found = () => {
      const api = providerApi(provider);
      if (!api) return;
      delete globals[onload];
      resolve(api);
    };
    globals[onload] = found;
    const script = document.createElement('script');
    script.async = true;
    script.src = explicit(scriptUrl, onload);
    script.onload = found;
    script.onerror = () => reject(new Error(`${provider} did not load`));
    document.head.append(script);
  });
}

/**
 * The server's address with what explicit rendering needs: `render=explicit` (the widget
 * is drawn where the chat says, never by a scan of the page) and the `onload` callback.
 * Only http(s) addresses have a query to add to; any other is loaded as given.
 */
function explicit(scriptUrl: string, onload: string): string {
  const url = new URL(scriptUrl, document.baseURI);
  if (!url.protocol.startsWith('http')) return scriptUrl;
  if (!url.searchParams.has('render')) url.searchParams.set('render', 'explicit');
  url.searchParams.set('onload', onload);
  return url.href;
}

/** Draws the provider's widget into `container`; returns what removes it. */
function drawProvider(
  api: ProviderApi,
  container: HTMLElement,
  siteKey: string,
  on: { token(token: string): void; error(): void },
): () => void {
  const id = api.render(container, {
    sitekey: siteKey,
    callback: on.token,
    // True: handled here (the line says so); Turnstile throws an error no callback handled.
    'error-callback': () => {
      on.error();
      return true;
    },
  });
  return () => {
    try {
      if (id !== undefined) api.remove?.(id);
    } catch {
      // Already gone (the provider removed it itself): nothing left to remove.
    }
    container.remove();
  };
}

/** What the check's provider drew for one element: `draw` it afresh, `remove` it. */
export class ProviderFrame {
  /**
   * Where the provider draws: a child of the element (light DOM), which its shadow root
   * shows through a slot. Provider scripts are written for elements of the document.
   */
  readonly #slotted = Object.assign(document.createElement('div'), { slot: 'challenge' });
  #remove: (() => void) | undefined;
  /** Counts draws, so that a script that loads after the check went draws nothing. */
  #draws = 0;

  constructor(private readonly host: HTMLElement) {}

  /** Draws the provider's widget, its script loaded first; `unavailable` when it cannot load. */
  draw(challenge: Challenge, on: { token(token: string): void; error(): void; unavailable(): void }): void {
    this.#remove?.();
    this.#remove = undefined;
    // A fresh element for each draw: a provider's widget is never drawn twice in one.
    const container = document.createElement('div');
    this.#slotted.replaceChildren(container);
    this.host.append(this.#slotted);
    const draw = ++this.#draws;
    loadProvider(challenge).then(
      (api) => {
        if (draw === this.#draws) this.#remove = drawProvider(api, container, challenge.siteKey, on);
      },
      () => draw === this.#draws && on.unavailable(),
    );
  }

  remove(): void {
    this.#draws++;
    this.#remove?.();
    this.#remove = undefined;
    this.#slotted.remove();
  }
}
