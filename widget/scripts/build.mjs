// Builds the widget three times (npm run build -w @aalis/widget):
// - dist/index.js: an ES module for bundlers, with lit, marked and the protocol as dependencies,
//   and the modules it imports lazily (a bundler splits them off in turn): dist/marked.js when
//   it starts, dist/challenge-provider.js when a bot challenge is asked;
// - dist/aalis-chat.js: one minified file for a script tag, and the parts it loads from next
//   to itself: aalis-chat-marked.js when it starts (markdown shows as plain text until then),
//   aalis-chat-challenge-provider.js when a bot challenge is asked, and the others
//   (aalis-chat-approval-cards.js, …) when a chat first shows what they draw;
// - dist/aalis-console.js: the owner's console (<aalis-console>), one minified file with lit in
//   it, which the server's /admin page loads. Its own entry: the chat's files never hold it.
// Then the type declarations of the npm module, into dist/types.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { BROWSER_TARGET } from './browser-target.mjs';
import { minifyTemplatesPlugin } from './minify-templates.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

const shared = {
  root,
  configFile: false,
  logLevel: 'warn',
  // Workspace packages resolve to their TypeScript sources.
  resolve: { conditions: ['@aalis/source', 'module', 'browser', 'default'] },
};

await build({
  ...shared,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: BROWSER_TARGET,
    minify: false,
    sourcemap: true,
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'index.js' },
    rolldownOptions: {
      // Dependencies stay imports: the page's bundler resolves them once, shared with the page's
      // own copies (ext-apps and its MCP SDK too, in the lazily loaded app host).
      external: [/^lit($|\/)/, /^marked$/, /^@aalis\/protocol/, /^@modelcontextprotocol\//],
      // Named as its module, without a hash: the package is versioned, not the file.
      output: { chunkFileNames: '[name].js' },
    },
  },
});

/**
 * A minified file for a `<script type=module>` tag (not library mode: Vite leaves an 'es'
 * library unminified, and these files are for browsers), from `input`, with `output`'s names.
 */
const scriptBuild = (input, output) =>
  build({
    ...shared,
    plugins: [minifyTemplatesPlugin()],
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      target: BROWSER_TARGET,
      // NO_MINIFY=1 keeps the names, for a profile (bench/resume.mjs with RESUME_PROFILE=1).
      minify: !process.env.NO_MINIFY,
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: {
        input,
        preserveEntrySignatures: 'exports-only',
        output: { format: 'es', ...output },
      },
    },
  });

// marked (src/markdown/lexer.ts), the challenge's provider (src/controllers/challenge.ts)
// and the views of src/shared/lazy-view.ts are loaded lazily: each its own file, next to
// this one.
await scriptBuild('src/index.ts', {
  entryFileNames: 'aalis-chat.js',
  chunkFileNames: ({ name }) => `aalis-chat-${name.replace(/\.esm$/, '')}.js`,
});

// One file, nothing loaded later: the console is one page, opened now and then, and the
// server serves this file alone.
await scriptBuild('src/console-entry.ts', { entryFileNames: 'aalis-console.js', codeSplitting: false });

execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
console.log(
  'built widget/dist/index.js, widget/dist/aalis-chat.js, widget/dist/aalis-console.js and widget/dist/types',
);
