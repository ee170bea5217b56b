/**
 * Server time on a client. All times in frames and views are the server's epoch
 * milliseconds; a client's own clock may be off by hours. Taking the offset when
 * `ready` or `stream_resume` arrives makes every elapsed time right regardless: the
 * only error left is the network delay of that one frame.
 */

/** `localNow - serverTime`, measured when a frame that carries `serverTime` arrives. */
export function clockOffset(serverTime: number, localNow: number): number {
  return localNow - serverTime;
}

/** A local clock reading expressed on the server's clock. */
export function toServerTime(localNow: number, offset: number): number {
  return localNow - offset;
}

/** Milliseconds since a server-stamped moment, as the server would count them now. */
export function elapsedSince(serverStamp: number, localNow: number, offset: number): number {
  return Math.max(0, toServerTime(localNow, offset) - serverStamp);
}
