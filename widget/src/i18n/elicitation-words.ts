/**
 * What an elicitation's form and page say, as a language words it: the shape only. The
 * words themselves ship in the lazily loaded part (components/elicitation/elicitation-words.ts);
 * a host's own go through `registerLocale` (strings.ts).
 */
export interface ElicitationWords {
  submit: string;
  decline: string;
  /** Opens the MCP server's page in a new window. */
  open: string;
  /** Read after a required field's name (the visible mark is a `*`). */
  required: string;
  /** The empty choice of a single-select field. */
  noChoice: string;
  /** After Open: the visitor finishes on the page; then the MCP server says it is done. */
  waiting: (host: string) => string;
  done: string;
  /** A page that is not http or https: shown, never opened from here. */
  cannotOpen: string;
  /** Why a field's value is refused, said under it. */
  missing: string;
  tooShort: (min: number) => string;
  tooLong: (max: number) => string;
  notNumber: string;
  notInteger: string;
  tooSmall: (min: number) => string;
  tooBig: (max: number) => string;
  email: string;
  url: string;
  date: string;
  notOption: string;
  tooFew: (min: number) => string;
  tooMany: (max: number) => string;
}
