// `npm run pack:all [-- DIR]`: the three publishable packages (@aalis/protocol,
// @aalis/server, @aalis/widget) as the tarballs a registry would hand out, in DIR
// (default `packages/`). Until they are published, this is how a site outside this
// repository installs them: `npm install ./packages/*.tgz`. See RELEASING.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const destination = resolve(process.argv[2] ?? resolve(root, 'packages'));
mkdirSync(destination, { recursive: true });
const npm = (args) => execFileSync('npm', args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
// Built first, so a tarball never carries a dist/ older than its source.
npm(['run', 'build', '--silent']);
npm(['run', 'build', '--silent', '-w', '@aalis/widget']);
for (const workspace of ['protocol', 'server', 'widget']) {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', destination, '-w', `@aalis/${workspace}`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
for (const file of readdirSync(destination)
  .filter((name) => name.endsWith('.tgz'))
  .sort()) {
  console.log(resolve(destination, file));
}
