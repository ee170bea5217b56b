/**
 * How a place in the configuration file is named in an error: `mcpServers.files.command`,
 * `builtinTools[2]`, `approval["a.b"]` for a key that is not a plain name.
 */

/** One step into the file: an object's key or an array's index. */
export type PathSegment = string | number;

export function formatPath(segments: readonly PathSegment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (/^[A-Za-z0-9_$*-]+$/.test(segment)) path += path ? `.${segment}` : segment;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** `path: message`, or the message alone for the file as a whole. */
export const atPath = (segments: readonly PathSegment[], message: string): string =>
  segments.length ? `${formatPath(segments)}: ${message}` : message;

/**
 * One mistake in the file: its line, and where it is, so that the part it is in can be
 * left out and the rest still checked (every mistake is said, not only the first).
 */
export interface Mistake {
  path: readonly PathSegment[];
  line: string;
}

export const mistakeAt = (path: readonly PathSegment[], message: string): Mistake => ({
  path,
  line: atPath(path, message),
});
