/**
 * Frames `ws` refuses on its own (over the size limit, invalid UTF-8, a broken frame)
 * reach the server as an 'error' on the socket, with a stack. They are the client's
 * doing, and anyone can send them: logged as errors with their stack, each one would let
 * an attacker fill the log. This tells them apart from the server's own failures.
 */

/** The close code ws sent with each refusal it reports by an error code. */
const CLOSE_CODES: Readonly<Record<string, number>> = {
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009,
  WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH: 1009,
  WS_ERR_INVALID_UTF8: 1007,
  WS_ERR_TOO_MANY_BUFFERED_PARTS: 1008,
};

/** Protocol errors (a bad opcode, an unmasked frame...) close with 1002. */
const PROTOCOL_ERROR = 1002;

/**
 * The close code ws sent for a frame it refused, or undefined when the error is not a
 * refusal (a bug in the handler: that one is worth an error line and its stack).
 */
export function refusalCloseCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('WS_ERR_')) return undefined;
  return CLOSE_CODES[code] ?? PROTOCOL_ERROR;
}
