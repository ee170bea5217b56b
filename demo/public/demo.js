// The demo page's controls: scenario buttons, theme and language switches, the snippet.
const chat = document.getElementById('chat-widget');

// The demo model's scenarios, as the server lists them (/scenarios.json, from
// server/src/providers/demo/scenarios.ts): a button each, sending the prompt that picks it.
const scenarioBox = document.getElementById('scenarios');
fetch('/scenarios.json')
  .then((response) => response.json())
  .then((scenarios) => {
    for (const { label, prompt } of scenarios) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.title = prompt;
      button.addEventListener('click', () => chat.send(prompt));
      scenarioBox.append(button);
    }
  });

// A custom theme is nothing but public tokens set on the element.
const forest = {
  '--aalis-color-accent': '#2f6f4f',
  '--aalis-color-background': '#f6f3ea',
  '--aalis-bubble-assistant-background': '#e9e3d3',
  '--aalis-card-background': '#fffdf6',
  '--aalis-radius': '4px',
  '--aalis-font-family': 'Georgia, serif',
};
function pressed(group, button) {
  for (const b of group.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
}
const themes = document.getElementById('themes');
themes.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  if (!button) return;
  const theme = button.dataset.theme;
  for (const token of Object.keys(forest)) chat.style.removeProperty(token);
  if (theme === 'forest')
    for (const [token, value] of Object.entries(forest)) chat.style.setProperty(token, value);
  chat.theme = theme === 'dark' ? 'dark' : 'light';
  document.body.classList.toggle('dark', theme === 'dark');
  pressed(themes, button);
});

const languages = document.getElementById('languages');
languages.addEventListener('click', (event) => {
  const button = event.target.closest('button');
  if (!button) return;
  chat.locale = button.dataset.locale;
  pressed(languages, button);
});

document.getElementById('new-chat').addEventListener('click', () => chat.newSession());

const snippet = `<script type="module" src="${location.origin}/aalis-chat.js"></script>
<aalis-chat server="${location.origin}"></aalis-chat>`;
document.getElementById('snippet').textContent = snippet;
document.getElementById('copy-snippet').addEventListener('click', async (event) => {
  await navigator.clipboard.writeText(snippet);
  event.target.textContent = 'Copied';
  setTimeout(() => (event.target.textContent = 'Copy snippet'), 1500);
});
