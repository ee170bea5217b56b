// What the tests need from Debian, installed in one process (the package lists refreshed
// once), first what the node tests need, then the other engines: redis-server,
// PostgreSQL and nginx (ensure-services.mjs) and Chromium (ensure-chromium.mjs), then
// Firefox ESR, WebKitGTK and Xvfb (ensure-engines.mjs). scripts/test.mjs runs it in the
// background while it type-checks and lints. Started with an IPC channel, it sends
// 'base' once the first group is in and 'engines' once the second is; a failure is
// printed and sent as { failed: 'base' | 'engines', message }.
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureEngines } from './ensure-engines.mjs';
import { ensureServices } from './ensure-services.mjs';

const tell = (message) => (process.send ? process.send(message) : console.log(JSON.stringify(message)));

function group(name, install) {
  try {
    install();
    tell(name);
  } catch (error) {
    console.error(error.message);
    tell({ failed: name, message: error.message });
  }
}

group('base', () => {
  ensureServices();
  ensureChromium();
});
group('engines', ensureEngines);
process.disconnect?.();
