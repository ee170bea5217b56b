/**
 * The bot challenge an anonymous visitor may be asked to pass (PROTOCOL.md, section 2), as
 * a Lit ReactiveController. A `send` refused with `challenge_required` shows the check's
 * line at once and loads what draws the provider's widget (`challenge-provider.ts`, its
 * own file: almost no page is ever asked, so the script-tag file does not carry it); the
 * token it gives goes in a new `hello` (`pass`), and the `ready` that answers it means the
 * check passed: the widget goes, and the refused message is sent again (`passed`).
 * `challenge_failed` shows the check again, saying the last try did not pass.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ErrorCode, type Challenge, type ErrorFrame } from '@aalis/protocol/client';
import type { ChallengeLine } from '../components/challenge/challenge.js';
import type { ProviderFrame } from './challenge-provider.js';

export interface ChallengeCallbacks {
  /** The provider gave a token: say it in a hello. */
  pass(token: string): void;
  /** A `ready` answered that hello: send again what was refused. */
  passed(): void;
}

export class ChallengeGate implements ReactiveController {
  /** What the check's line says while it is shown; undefined when none is. */
  line: ChallengeLine | undefined;
  /** What draws the provider's widget, once its file has loaded. */
  #frame: ProviderFrame | undefined;
  #loading: Promise<ProviderFrame> | undefined;
  /** A token went in a hello: the next `ready` says it passed. */
  #verifying = false;
  /** Counts shows and hides, so that a file that loads after the check went draws nothing. */
  #shows = 0;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly callbacks: ChallengeCallbacks,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#hide();
  }

  /** An `error` frame: the two codes about the challenge are this controller's. */
  error({ code, challenge }: ErrorFrame): void {
    if (!challenge) return;
    if (code === ErrorCode.ChallengeFailed) {
      this.#verifying = false;
      this.#show(challenge, 'failed');
    }
    // Another send refused while the check is on screen: it stays as it is.
    else if (code === ErrorCode.ChallengeRequired && (!this.line || this.line === 'unavailable'))
      this.#show(challenge, 'ask');
  }

  ready(): void {
    if (!this.#verifying) return;
    this.#hide();
    this.callbacks.passed();
  }

  #show(challenge: Challenge, line: ChallengeLine): void {
    this.#say(line);
    const shown = ++this.#shows;
    // A relative import resolves against this module's own address (import.meta.url), so
    // the part is fetched from beside the script, on whatever site the script was loaded.
    this.#loading ??= import('./challenge-provider.js').then(
      ({ ProviderFrame }) => (this.#frame = new ProviderFrame(this.host)),
    );
    this.#loading.then(
      (frame) =>
        shown === this.#shows &&
        frame.draw(challenge, {
          token: (token) => this.#token(token),
          error: () => this.#say('failed'),
          unavailable: () => this.#say('unavailable'),
        }),
      () => {
        // Offline, or the file not served: the next challenge tries again.
        this.#loading = undefined;
        if (shown === this.#shows) this.#say('unavailable');
      },
    );
  }

  #token(token: string): void {
    // One token at a time: the provider may give another (a refresh) while one is checked.
    if (this.#verifying || !token) return;
    this.#verifying = true;
    this.callbacks.pass(token);
  }

  #say(line: ChallengeLine | undefined): void {
    this.line = line;
    this.host.requestUpdate();
  }

  #hide(): void {
    this.#shows++;
    this.#frame?.remove();
    this.#verifying = false;
    this.#say(undefined);
  }
}
