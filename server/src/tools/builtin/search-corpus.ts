/** The small text the search tool looks through: notes about Aalis Chat itself. */
export interface CorpusDocument {
  title: string;
  text: string;
}

export const corpus: CorpusDocument[] = [
  {
    title: 'Why tool calls look frozen',
    text: 'OpenAI-compatible models send no delta.content while they write a tool call. Every chunk carries only a fragment of the arguments. A chat that waits for the whole call shows nothing for seconds or minutes, and users think it has hung.',
  },
  {
    title: 'Pending tool-call cards',
    text: 'Aalis shows one card per tool call being written, with the tool name, the characters written so far and the elapsed time, for example "write_file 142 chars · 3.2s". When no fragment arrives for five seconds the card says it is waiting for the model.',
  },
  {
    title: 'Resume after refresh',
    text: 'The server keeps a stream buffer per session. A page that reconnects gets a stream_resume frame with the text, reasoning, tool blocks and cards so far; elapsed times continue from the server start time instead of restarting at zero.',
  },
  {
    title: 'Embedding the widget',
    text: 'Add one script tag that loads aalis-chat.js from your server and place an <aalis-chat server="https://chat.example.com"> element. Theme it with --aalis-* custom properties and ::part selectors.',
  },
  {
    title: 'Providers',
    text: 'The server talks to OpenAI (Chat Completions and the Responses API) and Anthropic through their official SDKs, to DeepSeek with its reasoning_content, to Ollama over its NDJSON chat API, and to a scripted demo model that needs no key.',
  },
  {
    title: 'Security',
    text: 'WebSocket upgrades are checked against an Origin allow-list, an optional token guards the socket, every buffer has a limit, and model output is rendered without innerHTML.',
  },
  {
    title: 'Tools',
    text: 'Tools are declared with defineTool: a name, a description, JSON Schema parameters and an execute function. Arguments are validated before execute runs; unknown tools and invalid JSON come back to the model as errors it can correct.',
  },
  {
    title: 'History',
    text: 'Finished messages are stored in SQLite under a data directory, so a restart keeps every chat. A turn that crashes midway is stored as failed, never half-written.',
  },
];
