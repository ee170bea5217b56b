#!/usr/bin/env node
// The `aalis-server` command: runs the built server (npm install builds it).
import { existsSync } from 'node:fs';

// History is kept with Node's own SQLite (node:sqlite), which Node has from 22.13: say so
// plainly rather than fail later on a missing module.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(`aalis-server: needs Node.js 22.13 or later (22 or 24 LTS); this is ${process.version}.`);
  process.exit(2);
}

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('aalis-server: not built yet: run `npm run build` in the project root.');
  process.exit(2);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2), process.env);
if (code >= 0) process.exit(code);
