/**
 * The conversation by place: one version of each (the latest unless this tab chose
 * another), a switcher where there are several, and the last exchange's own actions
 * (edit the question, regenerate the answer) while no turn runs.
 */
import { nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { versionGroups, type ChatMessage } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';
import { plainText } from '../message/message.js';
import type { VersionsView } from '../versions/versions-view.js';
import { renderEditButton } from '../versions/versions.js';

export interface HistoryState {
  strings: Strings;
  messages: readonly ChatMessage[];
  /** How many places are shown, from the newest (a long history shows in chunks). */
  shownPlaces: number;
  /** The version each place shows, by the id of its first message; the latest when absent. */
  chosen: ReadonlyMap<string, number>;
  /** The question being edited. */
  editing: string | undefined;
  /** No turn runs. */
  idle: boolean;
  /** The model may be asked again: no turn runs, and no person answers (they are `busy`). */
  askable: boolean;
}

export interface HistoryHandlers {
  /** A finished message, with its actions; `regenerable` for the last answer. */
  message(message: ChatMessage, regenerable: boolean): unknown;
  startEdit(messageId: string): void;
  edit: { save(text: string): void; cancel(): void };
  choose(place: string, version: number): void;
  /**
   * The switcher and the edit form, asked for only where one shows; undefined until their
   * file has come (../versions/versions.ts), meanwhile the place shows as if neither did.
   */
  versions(): VersionsView | undefined;
}

export function renderHistory(
  { strings, messages, shownPlaces, chosen, editing, idle, askable }: HistoryState,
  on: HistoryHandlers,
): unknown {
  const all = versionGroups(messages);
  const groups = all.slice(Math.max(0, all.length - shownPlaces));
  return repeat(
    groups,
    (versions) => versions[0]![0]!.id,
    (versions, place) => {
      const key = versions[0]![0]!.id;
      const shown = Math.min(chosen.get(key) ?? versions.length - 1, versions.length - 1);
      const exchange = versions[shown]!;
      // Only the latest version of the last place can be asked again.
      const last = askable && place === groups.length - 1 && shown === versions.length - 1;
      const question = exchange[0]!.role === 'user' ? exchange[0]! : undefined;
      const answer = exchange.at(-1)!.role === 'assistant' ? exchange.at(-1)! : undefined;
      const edited = !!question && editing === question.id;
      const view = versions.length > 1 || edited ? on.versions() : undefined;
      return [
        exchange.map((message) =>
          message === question && edited && view
            ? view.editForm(plainText(message), strings, on.edit)
            : [
                on.message(message, last && message === answer),
                // Right under the question it edits.
                last && message === question
                  ? renderEditButton(strings, () => on.startEdit(message.id))
                  : nothing,
              ],
        ),
        versions.length > 1 && view
          ? view.switcher(shown, versions.length, { strings, locked: !idle }, (index) =>
              on.choose(key, index),
            )
          : nothing,
      ];
    },
  );
}
