/** @aalis/protocol: the wire contract of PROTOCOL.md in code. */
export * from './constants.js';
export * from './shapes.js';
export * from './client-frames.js';
export * from './server-frames.js';
export * from './decode.js';
export * from './reducer.js';
export * from './progress-only.js';
export * from './argument-text.js';
export * from './clock.js';
export * from './versions.js';
export * from './image-type.js';
