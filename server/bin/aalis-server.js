#!/usr/bin/env node
// The `aalis-server` command: runs the built server (npm install builds it).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('aalis-server: not built yet: run `npm run build` in the project root.');
  process.exit(2);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2), process.env);
if (code >= 0) process.exit(code);
