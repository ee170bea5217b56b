// The end-to-end smoke suite (engines/smoke-suite.ts) in WebKit.
import { smokeSuite } from './engines/smoke-suite.js';

smokeSuite('WebKit');
