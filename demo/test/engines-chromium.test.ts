// The end-to-end smoke suite (engines/smoke-suite.ts) in Chromium.
import { smokeSuite } from './engines/smoke-suite.js';

smokeSuite('Chromium');
