/**
 * The demo provider: the OpenAI provider reading the scripted demo model through its
 * in-process OpenAI-compatible endpoint. Needs no key and no network.
 */
import { OpenAIProvider } from '../openai/provider.js';
import type { ChatProvider, ChatRequest, ChatStreamOptions } from '../core/types.js';
import { DemoModelServer, type DemoModelServerOptions } from './model-server.js';
import { scenarios } from './scenarios.js';

export class DemoProvider implements ChatProvider {
  /**
   * The demo model's scenarios as the demo page offers them: a button's label, and the
   * prompt it sends, which picks that scenario (demo/app.mjs serves the list).
   */
  static readonly scenarios: ReadonlyArray<{ label: string; prompt: string }> = scenarios.map(
    ({ label, prompt }) => ({ label, prompt }),
  );

  /**
   * What an empty conversation shows when the server's configuration says nothing (no
   * `welcome`, no `starters`): what this model is, and a few scenarios to start with.
   */
  static readonly greeting = {
    welcome:
      'This is the scripted **demo model**: no API key needed. It shows what a chat looks like while a model writes tool calls and runs tools. Pick one, or write anything for the list of what it can show.',
    starters: ['long-tool-call', 'parallel-tools', 'approval', 'markdown'].map(
      (id) => scenarios.find((s) => s.id === id)!.prompt,
    ),
  };

  readonly name = 'demo';
  readonly #server: DemoModelServer;
  #provider: Promise<OpenAIProvider> | undefined;

  constructor(options: DemoModelServerOptions = {}) {
    this.#server = new DemoModelServer(options);
  }

  async *chatStream(request: ChatRequest, options?: ChatStreamOptions) {
    this.#provider ??= this.#server.start().then(
      (baseURL) =>
        new OpenAIProvider({
          name: 'demo',
          apiKey: 'demo',
          baseURL,
          retry: { retries: 0, baseDelayMs: 0, maxDelayMs: 0 },
        }),
    );
    yield* (await this.#provider).chatStream(request, options);
  }

  async close(): Promise<void> {
    await this.#server.close();
    this.#provider = undefined;
  }
}
