// Writes REFERENCE.md, the theming and API reference of <aalis-chat>, from the Custom
// Elements Manifest (custom-elements.json), which the analyzer builds from the JSDoc in
// the sources: `npm run docs -w @aalis/widget`. A test fails while either is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The analyzer lists modules in file-system order; sorted, the manifest is the same on every machine. */
export function sortModules(manifest) {
  return { ...manifest, modules: [...manifest.modules].sort((a, b) => a.path.localeCompare(b.path)) };
}

export function reference(manifest) {
  const elements = manifest.modules.flatMap((m) => (m.declarations ?? []).filter((d) => d.customElement));
  const chat = elements.find((e) => e.tagName === 'aalis-chat');
  const card = elements.find((e) => e.tagName === 'aalis-tool-progress');
  const cell = (text) => (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const table = (head, rows) =>
    [
      `| ${head.join(' | ')} |`,
      `| ${head.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ].join('\n');
  const events = [
    ...new Map((chat.events ?? []).filter((e) => e.description).map((e) => [e.name, e])).values(),
  ];
  const methods = (chat.members ?? []).filter(
    (m) => m.kind === 'method' && !m.privacy && !m.static && !m.name.startsWith('#') && m.description,
  );
  return `# \`<aalis-chat>\` reference

Generated from the sources by \`npm run docs -w @aalis/widget\` (Custom Elements Manifest
in \`custom-elements.json\`). Do not edit by hand.

${chat.description ?? ''}

## Attributes

${table(
  ['attribute', 'default', 'meaning'],
  (chat.attributes ?? []).map((a) => [`\`${a.name}\``, a.default ? `\`${a.default}\`` : '', a.description]),
)}

## Methods

${table(
  ['method', 'meaning'],
  methods.map((m) => [`\`${m.name}(${(m.parameters ?? []).map((p) => p.name).join(', ')})\``, m.description]),
)}

## Events

All bubble and are composed, so a page can listen on the element or any ancestor.

${table(
  ['event', 'meaning'],
  events.map((e) => [`\`${e.name}\``, e.description]),
)}

## CSS custom properties (public theme tokens)

Set them on the element or any ancestor; they are stable across versions. Inside, each
feeds a private \`--_*\` token that the rules use.

${table(
  ['property', 'meaning'],
  (chat.cssProperties ?? []).map((p) => [`\`${p.name}\``, p.description]),
)}

## Parts

Style the main blocks from the page with \`aalis-chat::part(name)\`.

${table(
  ['part', 'meaning'],
  (chat.cssParts ?? []).map((p) => [`\`${p.name}\``, p.description]),
)}

Inside a pending card (\`aalis-chat::part(pending-card)\` is its box), \`<aalis-tool-progress>\`
has the parts:

${table(
  ['part', 'meaning'],
  (card.cssParts ?? []).map((p) => [`\`${p.name}\``, p.description]),
)}
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const manifest = sortModules(JSON.parse(readFileSync(`${root}custom-elements.json`, 'utf8')));
  writeFileSync(`${root}custom-elements.json`, JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(`${root}REFERENCE.md`, reference(manifest));
  console.log('wrote widget/REFERENCE.md');
}
