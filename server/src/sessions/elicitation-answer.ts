/**
 * Whether a visitor's answer fits the elicitation it answers: the same rules on every
 * instance (the one that runs the turn, and one that passes an answer on to it), so an
 * answer that does not fit is refused where it arrives and the request stays open.
 *
 * A form's schema is MCP's flat one; a field it does not name is refused too (nothing
 * the server did not ask for reaches it). Formats are checked as the widget checks them.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { Elicitation, ElicitationAnswerFrame, ElicitationForm } from '@aalis/protocol';

export type AnswerCheck = { ok: true } | { ok: false; message: string };

const ajv = new Ajv({ allErrors: false, strict: false });
// MCP allows four string formats; anything else a server names is not checked.
ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/);
ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:[^\s]*$/i);
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/);

/** Compiled forms, by the schema object the request carried. */
const compiled = new WeakMap<ElicitationForm, ValidateFunction>();

/** Compiles a form once; throws when the schema is not one Ajv can use. */
export function formValidator(form: ElicitationForm): ValidateFunction {
  let validate = compiled.get(form);
  if (!validate) {
    const schema = { ...form, additionalProperties: false };
    try {
      validate = ajv.compile(schema);
    } finally {
      // Ajv keeps every schema it compiled for good; the WeakMap above keeps this one as
      // long as its request lives, and no longer.
      ajv.removeSchema(schema);
    }
    compiled.set(form, validate);
  }
  return validate;
}

export function checkAnswer(
  elicitation: Elicitation,
  answer: Pick<ElicitationAnswerFrame, 'action' | 'content'>,
): AnswerCheck {
  if (answer.action !== 'accept') {
    return answer.content === undefined
      ? { ok: true }
      : { ok: false, message: `only an accepted answer has content, not "${answer.action}"` };
  }
  if (elicitation.mode === 'url') {
    if (elicitation.opened) return { ok: false, message: 'this page was already opened' };
    return answer.content === undefined
      ? { ok: true }
      : { ok: false, message: 'a page to visit is answered without content' };
  }
  if (answer.content === undefined) return { ok: false, message: 'the form is accepted with its content' };
  const form = elicitation.requestedSchema;
  if (!form) return { ok: false, message: 'this request has no form' };
  let validate: ValidateFunction;
  try {
    validate = formValidator(form);
  } catch {
    return { ok: false, message: 'this form cannot be checked' };
  }
  if (validate(answer.content)) return { ok: true };
  return { ok: false, message: ajv.errorsText(validate.errors, { dataVar: 'answer' }) };
}
