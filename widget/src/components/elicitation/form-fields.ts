/**
 * The inputs of an elicitation's form, one labelled control per field: a text box of the
 * field's kind (email, web address, date), a number box, a checkbox, a list to choose one
 * from, or a group of checkboxes to choose several. Each says whether it is required (a
 * `*`, and `required` for screen readers), carries its description and its problem under
 * it, tied by `aria-describedby`. The field at `index` has the id `f<index>` (a group of
 * checkboxes: `f<index>-<choice>`), by which the form reads it back.
 */
import type { TemplateResult } from 'lit';
import type { ElicitationWords } from './elicitation-words.js';
import type { Field, MultiField, SelectField } from './form-schema.js';
import type { LitKit } from './lit-kit.js';

export interface FieldsView {
  words: ElicitationWords;
  /** What is wrong with a field's value, by field name. */
  problems: ReadonlyMap<string, string>;
}

/** The id of the control to focus for the field at `index`: a group's first checkbox. */
export const controlId = (field: Field, index: number): string =>
  field.kind === 'multi' ? `f${index}-0` : `f${index}`;

export function renderFields(kit: LitKit, fields: readonly Field[], view: FieldsView): TemplateResult[] {
  return fields.map((field, index) => renderField(kit, field, index, view));
}

function renderField(kit: LitKit, field: Field, index: number, view: FieldsView): TemplateResult {
  const { html, nothing } = kit;
  const id = `f${index}`;
  const problem = view.problems.get(field.name);
  const describedBy =
    [field.description && `${id}-hint`, problem && `${id}-problem`].filter(Boolean).join(' ') || nothing;
  const invalid = problem ? 'true' : nothing;
  const mark = field.required ? html`<span class="mark" aria-hidden="true">*</span>` : nothing;
  const notes = html`${field.description ? html`<p class="hint" id="${id}-hint">${field.description}</p>` : nothing}${
    problem ? html`<p class="problem" id="${id}-problem">${problem}</p>` : nothing
  }`;
  switch (field.kind) {
    case 'boolean':
      // No mark: the box always answers, true or false; a mark would read as "must be ticked".
      return html`<div class="field check">
        <input
          type="checkbox"
          id=${id}
          ?checked=${field.initial === true}
          aria-invalid=${invalid}
          aria-describedby=${describedBy}
        />
        <label for=${id}>${field.label}</label>
        ${notes}
      </div>`;
    case 'multi':
      return renderGroup(kit, field, index, view, { describedBy, invalid, mark, notes });
    case 'select':
      return html`<div class="field">
        <label for=${id}>${field.label}${mark}</label>
        ${renderSelect(kit, field, id, view.words, describedBy, invalid)} ${notes}
      </div>`;
    case 'number':
    case 'text': {
      // One box for both kinds: the limits of the other kind are left off (`nothing`).
      const number = field.kind === 'number' ? field : undefined;
      const text = field.kind === 'text' ? field : undefined;
      const integer = number?.integer;
      return html`<div class="field">
        <label for=${id}>${field.label}${mark}</label>
        <input
          type=${text?.input ?? 'number'}
          id=${id}
          inputmode=${number ? (integer ? 'numeric' : 'decimal') : nothing}
          step=${number ? (integer ? '1' : 'any') : nothing}
          min=${number?.minimum ?? nothing}
          max=${number?.maximum ?? nothing}
          minlength=${text?.minLength ?? nothing}
          maxlength=${text?.maxLength ?? nothing}
          value=${field.initial ?? nothing}
          ?required=${field.required}
          aria-invalid=${invalid}
          aria-describedby=${describedBy}
        />
        ${notes}
      </div>`;
    }
  }
}

/** One of a list: its first choice is none, unless the schema gives a default. */
function renderSelect(
  kit: LitKit,
  field: SelectField,
  id: string,
  words: ElicitationWords,
  describedBy: unknown,
  invalid: unknown,
): TemplateResult {
  const { html } = kit;
  return html`<select
    id=${id}
    ?required=${field.required}
    aria-invalid=${invalid}
    aria-describedby=${describedBy}
  >
    <option value="" ?selected=${field.initial === undefined}>${words.noChoice}</option>
    ${field.options.map(
      (o) => html`<option value=${o.value} ?selected=${o.value === field.initial}>${o.label}</option>`,
    )}
  </select>`;
}

/** Any of a list: a `<fieldset>` of checkboxes, its legend the field's name. */
function renderGroup(
  kit: LitKit,
  field: MultiField,
  index: number,
  view: FieldsView,
  parts: { describedBy: unknown; invalid: unknown; mark: unknown; notes: unknown },
): TemplateResult {
  const { html, nothing } = kit;
  const id = `f${index}`;
  return html`<fieldset
    class="field group"
    id=${id}
    aria-invalid=${parts.invalid}
    aria-describedby=${parts.describedBy}
  >
    <legend>
      ${field.label}${parts.mark}
      ${
        // Read as a word of its own: "Instruments, required".
        field.required ? html`<span class="sr-only">${view.words.required}</span>` : nothing
      }
    </legend>
    ${field.options.map(
      (o, choice) =>
        html`<label class="choice"
          ><input
            type="checkbox"
            id="${id}-${choice}"
            value=${o.value}
            ?checked=${field.initial?.includes(o.value) ?? false}
          />${o.label}</label
        >`,
    )}
    ${parts.notes}
  </fieldset>`;
}
