// The page httpagent.html runs: AG-UI's own client (HttpAgent, what CopilotKit uses
// underneath) talking to an Aalis server's /ag-ui, without React. It renders the events as
// they come: text as it streams, each tool call's name with its argument characters
// counting up, the result. A reload keeps the thread (sessionStorage), and Rejoin reads the
// live run again through the server's GET /ag-ui/threads/{threadId}/stream.
// Bundled for the browser by build-client.mjs.
/* global document */
import { HttpAgent, runHttpRequest, transformHttpEventStream } from '@ag-ui/client';

const $ = (selector) => document.querySelector(selector);
const server = $('main').dataset.server;
const THREAD = 'aalis-ag-ui-thread';
// Without a visitor token, the Aalis server names each browser an anonymous visitor by a
// key it hands out in this header; sending it back keeps the thread ours across requests.
const KEY_HEADER = 'x-aalis-anonymous-key';
const KEY = 'aalis-ag-ui-anonymous-key';

/** fetch with the visitor's credentials: the token typed in, or the anonymous key kept. */
async function serverFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const token = $('#token').value.trim();
  if (token) headers.set('authorization', `Bearer ${token}`);
  const key = sessionStorage.getItem(KEY);
  if (key) headers.set(KEY_HEADER, key);
  const response = await fetch(url, { ...init, headers });
  const issued = response.headers.get(KEY_HEADER);
  if (issued) sessionStorage.setItem(KEY, issued);
  return response;
}

/** HttpAgent whose connect() (what connectAgent() runs) rejoins the thread's live run. */
class RejoiningAgent extends HttpAgent {
  connect(input) {
    const url = `${server}/ag-ui/threads/${encodeURIComponent(input.threadId)}/stream`;
    return transformHttpEventStream(
      runHttpRequest(() => serverFetch(url, { headers: { accept: 'text/event-stream' } })),
    );
  }
}

let threadId = sessionStorage.getItem(THREAD) ?? newThread();
let agent = makeAgent();

function newThread() {
  const id = crypto.randomUUID();
  sessionStorage.setItem(THREAD, id);
  return id;
}

function makeAgent() {
  $('#thread').textContent = threadId;
  return new RejoiningAgent({ url: `${server}/ag-ui`, threadId, fetch: serverFetch });
}

// ---- rendering: one list item per message, one card per tool call

const log = $('#log');
const cards = new Map();
const texts = new Map();

function item(kind, text = '') {
  const li = document.createElement('li');
  li.className = kind;
  li.textContent = text;
  log.append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

/** A tool call's card: its name, its argument characters so far and seconds, then its result. */
function card(toolCallId, name) {
  let entry = cards.get(toolCallId);
  if (!entry) {
    const li = item('tool');
    li.innerHTML =
      '<strong></strong> <span class="count"></span> <span class="state"></span><pre hidden></pre>';
    li.querySelector('strong').textContent = name;
    entry = { li, chars: 0, startedAt: Date.now() };
    cards.set(toolCallId, entry);
  }
  return entry;
}

function showCount(entry, state) {
  const seconds = ((Date.now() - entry.startedAt) / 1000).toFixed(1);
  entry.li.querySelector('.count').textContent = `${entry.chars} chars · ${seconds}s`;
  if (state) entry.li.querySelector('.state').textContent = state;
}

function showResult(toolCallId, content) {
  const entry = cards.get(toolCallId);
  if (!entry) return;
  const pre = entry.li.querySelector('pre');
  pre.textContent = content;
  pre.hidden = false;
  entry.done = true;
  showCount(entry, 'done');
}

/** At a run's end, a call without a result never ran: it was cut off, by Stop or a failure. */
function endRun(text) {
  for (const entry of cards.values()) if (!entry.done) showCount(entry, 'not run');
  status(text);
}

/** The conversation a rejoin starts with: what happened before this page was loaded. */
function showSnapshot(messages) {
  log.replaceChildren();
  cards.clear();
  texts.clear();
  for (const message of messages) {
    if (message.role === 'user') item('user', typeof message.content === 'string' ? message.content : '');
    if (message.role === 'assistant') {
      if (message.content) texts.set(message.id, item('assistant', message.content));
      for (const call of message.toolCalls ?? []) {
        const entry = card(call.id, call.function.name);
        entry.chars = call.function.arguments.length;
        showCount(entry, 'written');
      }
    }
    if (message.role === 'tool') showResult(message.toolCallId, message.content);
  }
}

/** Every AG-UI event of a run or a rejoin, as it comes. */
const subscriber = {
  onEvent({ event }) {
    switch (event.type) {
      case 'MESSAGES_SNAPSHOT':
        return showSnapshot(event.messages);
      case 'TEXT_MESSAGE_START':
        return void texts.set(event.messageId, item('assistant'));
      case 'TEXT_MESSAGE_CONTENT':
        return void (texts.get(event.messageId) ?? item('assistant')).append(event.delta);
      case 'TOOL_CALL_START': {
        // On a rejoin the call may be in the snapshot: one TOOL_CALL_ARGS then brings all its text.
        const entry = card(event.toolCallId, event.toolCallName);
        entry.chars = 0;
        return showCount(entry, 'writing…');
      }
      case 'TOOL_CALL_ARGS': {
        const entry = cards.get(event.toolCallId);
        if (!entry) return;
        entry.chars += event.delta.length;
        return showCount(entry);
      }
      case 'TOOL_CALL_END':
        return cards.has(event.toolCallId) && showCount(cards.get(event.toolCallId), 'running…');
      case 'TOOL_CALL_RESULT':
        return showResult(event.toolCallId, event.content);
      case 'CUSTOM':
        // The card's clock as the server keeps it: the same on every tab and after a reload.
        if (event.name === 'aalis.tool_call_card' && cards.has(event.value.toolCallId))
          cards.get(event.value.toolCallId).startedAt = event.value.startedAt;
        return;
      case 'RUN_FINISHED':
        return endRun(event.outcome?.type === 'cancelled' ? 'stopped' : 'finished');
      case 'RUN_ERROR':
        return endRun(`error: ${event.message}${event.code ? ` (${event.code})` : ''}`);
    }
  },
};

function status(text) {
  $('#status').textContent = text;
}

/** Runs `work`, showing a failure the client threw (HTTP 401, 403, 404...) in the status line. */
async function attempt(label, work) {
  status(label);
  try {
    await work();
  } catch (error) {
    status(`${label} failed: ${error.message ?? error}`);
  }
}

$('#ask').addEventListener('submit', (e) => {
  e.preventDefault();
  const text = $('#question').value.trim();
  if (!text) return;
  $('#question').value = '';
  item('user', text);
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  void attempt('running…', () => agent.runAgent({}, subscriber));
});

// Closing the request would not stop the turn (a reload closes it too): Stop is its own call.
$('#stop').addEventListener('click', () =>
  attempt('stopping…', async () => {
    const url = `${server}/ag-ui/threads/${encodeURIComponent(threadId)}/stop`;
    const response = await serverFetch(url, { method: 'POST' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }),
);

$('#rejoin').addEventListener('click', () =>
  attempt('rejoining…', async () => {
    await agent.detachActiveRun();
    await agent.connectAgent({}, subscriber);
  }),
);

$('#new').addEventListener('click', () => {
  threadId = newThread();
  agent = makeAgent();
  log.replaceChildren();
  cards.clear();
  texts.clear();
  status('new thread');
});
