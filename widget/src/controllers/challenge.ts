/**
 * The bot challenge an anonymous visitor may be asked to pass (PROTOCOL.md, section 2), as
 * a Lit ReactiveController. A `send` refused with `challenge_required` shows the
 * provider's widget (its script loaded then, and only then); the token it gives goes in a
 * new `hello` (`pass`), and the `ready` that answers it means the check passed: the widget
 * goes, and the refused message is sent again (`passed`). `challenge_failed` shows the
 * check again, saying the last try did not pass.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ErrorCode, type Challenge, type ErrorFrame } from '@aalis/protocol/client';
import type { ChallengeLine } from '../components/challenge/challenge.js';
import { drawProvider, loadProvider } from './challenge-provider.js';

export interface ChallengeCallbacks {
  /** The provider gave a token: say it in a hello. */
  pass(token: string): void;
  /** A `ready` answered that hello: send again what was refused. */
  passed(): void;
}

export class ChallengeGate implements ReactiveController {
  /** What the check's line says while it is shown; undefined when none is. */
  line: ChallengeLine | undefined;
  /**
   * Where the provider draws: a child of the element (light DOM), which its shadow root
   * shows through a slot. Provider scripts are written for elements of the document.
   */
  readonly #slotted = Object.assign(document.createElement('div'), { slot: 'challenge' });
  #remove: (() => void) | undefined;
  /** A token went in a hello: the next `ready` says it passed. */
  #verifying = false;
  /** Counts draws, so that a script that loads after the check went draws nothing. */
  #draws = 0;

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
    this.#remove?.();
    this.#remove = undefined;
    this.#say(line);
    // A fresh element for each draw: a provider's widget is never drawn twice in one.
    const container = document.createElement('div');
    this.#slotted.replaceChildren(container);
    this.host.append(this.#slotted);
    const draw = ++this.#draws;
    loadProvider(challenge).then(
      (api) => {
        if (draw !== this.#draws) return;
        this.#remove = drawProvider(api, container, challenge.siteKey, {
          token: (token) => this.#token(token),
          error: () => this.#say('failed'),
        });
      },
      () => draw === this.#draws && this.#say('unavailable'),
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
    this.#draws++;
    this.#remove?.();
    this.#remove = undefined;
    this.#slotted.remove();
    this.#verifying = false;
    this.#say(undefined);
  }
}
