/**
 * The server's one logger shape: Fastify's (pino's) levels, each taking an object and a
 * message. The Fastify plugin passes `app.log` down, and each socket gets its request's
 * `request.log`; pino, console, or anything alike fits. `debug` may be left out (every
 * call to it is `log.debug?.(...)`), so that a host's three-level logger still does.
 */
export interface Logger {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
  debug?(object: object, message: string): void;
}

/** The default of an app without a logger of its own: warnings and errors on the console. */
export const warningsToConsole: Logger = {
  info: () => {},
  warn: (object, message) => console.warn(message, object),
  error: (object, message) => console.error(message, object),
};
