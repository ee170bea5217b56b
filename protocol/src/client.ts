/**
 * What a browser frontend needs, and nothing more: decoding server frames, the reducer,
 * the clock. Kept small on purpose (the widget's budget for it is 6 KB gzipped; see
 * test/bundle-size.test.ts).
 */
export { CloseCode, ErrorCode, Limits, PROTOCOL_VERSION } from './constants.js';
export { decodeServerFrame, parseServerFrame } from './client-decode.js';
export type { Decoded, FrameError } from './frame-errors.js';
export {
  approvalList,
  emptyView,
  progressList,
  reduce,
  type ChatView,
  type TurnView,
  type ViewFrame,
} from './reducer.js';
export { progressOnly } from './progress-only.js';
export { clockOffset, elapsedSince, toServerTime } from './clock.js';
export { latestVersions, versionGroups, type Exchange } from './versions.js';
export { IMAGE_SIGNATURE_BYTES, imageTypeOf } from './image-type.js';
export type * from './shapes.js';
export type * from './client-frames.js';
export type * from './server-frames.js';
