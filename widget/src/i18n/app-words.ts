/**
 * What an MCP App's frame and its link question say, as a language words it: the shape
 * only. The words themselves ship in the lazily loaded part (components/mcp-app/app-words.ts);
 * a host's own go through `registerLocale` (strings.ts).
 */
export interface AppWords {
  /** The app's frame, named for screen readers: "get_weather app from weather". */
  frameTitle: (name: string, server: string) => string;
  /** The app asks to open a link: the question, with the link's host. */
  openLink: (host: string) => string;
  /** The question's button that opens it (Cancel is the chat's `cancel`). */
  openLinkButton: string;
}
