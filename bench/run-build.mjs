// Runs the server from another build directory, as server/bin/aalis-server.js runs
// server/dist: `node bench/run-build.mjs server/dist-before`. For A/B benchmarks
// (BENCH_SERVER_DIST, see lib.mjs); the directory must sit inside server/ so that it
// resolves the same packages.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const { main } = await import(pathToFileURL(join(resolve(process.argv[2]), 'cli.js')).href);
const code = await main(process.argv.slice(3), process.env);
if (code >= 0) process.exit(code);
