// Makes sure the two browser engines besides Chromium exist for the cross-engine tests,
// installing Debian's packages when this machine can (root with apt-get), like
// ensure-chromium.mjs: Firefox ESR (driven over WebDriver BiDi by puppeteer-core) and
// WebKitGTK, the engine of Safari (its MiniBrowser driven by WebKitWebDriver, on a
// virtual X display from Xvfb). No test tool ever downloads a browser of its own.
// Prints the paths; exits 1 with one line saying what to install otherwise.
import { existsSync } from 'node:fs';
import { aptInstall, canAptInstall } from './apt-install.mjs';

export const firefoxPath = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const webkitDriverPath = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
/** Debian's multiarch directory of this machine's libraries, where WebKitGTK keeps MiniBrowser. */
const triplet =
  { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch] ?? `${process.arch}-linux-gnu`;
export const miniBrowserPath =
  process.env.MINIBROWSER_PATH ?? `/usr/lib/${triplet}/webkit2gtk-4.1/MiniBrowser`;
export const xvfbPath = process.env.XVFB_PATH ?? '/usr/bin/Xvfb';

/** Each program, and the Debian package that has it. */
const needed = () => [
  { path: firefoxPath, pkg: 'firefox-esr' },
  { path: webkitDriverPath, pkg: 'webkit2gtk-driver' },
  // The driver's package does not pull the browser in: MiniBrowser comes with the library.
  { path: miniBrowserPath, pkg: 'libwebkit2gtk-4.1-0' },
  { path: xvfbPath, pkg: 'xvfb' },
];

export function ensureEngines() {
  const missing = needed().filter(({ path }) => !existsSync(path));
  if (!missing.length) return { firefoxPath, webkitDriverPath, miniBrowserPath, xvfbPath };
  const packages = [...new Set(missing.map(({ pkg }) => pkg))];
  if (!canAptInstall()) {
    throw new Error(
      `Missing ${missing.map(({ path }) => path).join(', ')}: install ${packages.join(' ')} (Debian: apt-get install ${packages.join(' ')}).`,
    );
  }
  console.log(`Installing Debian packages ${packages.join(', ')} for the cross-engine tests (one time).`);
  const installed = aptInstall(packages);
  const still = needed().filter(({ path }) => !existsSync(path));
  if (!installed || still.length) {
    throw new Error(
      `Installing ${packages.join(' ')} failed: ${still.map(({ path }) => path).join(', ')} still missing.`,
    );
  }
  return { firefoxPath, webkitDriverPath, miniBrowserPath, xvfbPath };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(ensureEngines());
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
