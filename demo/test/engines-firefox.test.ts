// The end-to-end smoke suite (engines/smoke-suite.ts) in Firefox.
import { smokeSuite } from './engines/smoke-suite.js';

smokeSuite('Firefox');
