// Bundles httpagent-client.js with @ag-ui/client into one browser module, offline, with the
// project's esbuild. serve.mjs calls bundleClient() when the page asks for the script;
// run this file to write dist/httpagent-client.js instead, for any static host:
//
//   node examples/ag-ui/build-client.mjs
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('httpagent-client.js', import.meta.url));
const outfile = fileURLToPath(new URL('dist/httpagent-client.js', import.meta.url));

/** The bundle's text (`write: false`), or the path of the file written. */
export async function bundleClient({ write = false } = {}) {
  // Loaded here, not above: serve.mjs imports this file for every page, and needs esbuild for one.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    outfile,
    write,
    logLevel: 'warning',
  });
  return write ? outfile : result.outputFiles[0].text;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`wrote ${await bundleClient({ write: true })}`);
}
