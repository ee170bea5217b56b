/**
 * The scripted demo model, inside the process: the provider, and its entry for the
 * registry (README.md says what it does). It needs no key, and is chosen when nothing else is.
 */
import { defineProvider } from '../core/definition.js';
import { DEMO_MODEL } from './model-server.js';
import { DemoProvider } from './provider.js';

export { DemoProvider } from './provider.js';
export { DEMO_MODEL, DemoModelServer, type DemoModelServerOptions } from './model-server.js';

export const demo = defineProvider({
  name: 'demo',
  defaultModel: DEMO_MODEL,
  settings: [],
  create: () => {
    const provider = new DemoProvider();
    return { provider, close: () => provider.close() };
  },
});
