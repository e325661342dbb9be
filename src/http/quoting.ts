// An error tells what was wrong without sending the caller's whole value back: a 900 KB string or
// a list nested thousands deep is quoted by a short prefix.

/** The most characters of a caller's string an error quotes; a longer one is cut and ends with "…". */
export const MAX_QUOTED_CHARACTERS = 100;

/** The most entries of a list or object, and levels of nesting, an echoed value keeps. */
const MAX_QUOTED_ENTRIES = 20;
const MAX_QUOTED_DEPTH = 4;

const ellipsis = '…';

const cut = (text: string) =>
  text.length > MAX_QUOTED_CHARACTERS ? text.slice(0, MAX_QUOTED_CHARACTERS) + ellipsis : text;

/** A bounded copy of a caller's value, as FastAPI's `input` echoes it: small values unchanged, long strings cut, long or deep lists and objects elided. */
export function quotable(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cut(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth === MAX_QUOTED_DEPTH) return ellipsis;
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_QUOTED_ENTRIES).map((item) => quotable(item, depth + 1));
    return value.length > MAX_QUOTED_ENTRIES ? [...kept, ellipsis] : kept;
  }
  const entries = Object.entries(value);
  const kept = entries.slice(0, MAX_QUOTED_ENTRIES).map(([key, item]) => [cut(key), quotable(item, depth + 1)]);
  return Object.fromEntries(entries.length > MAX_QUOTED_ENTRIES ? [...kept, [ellipsis, ellipsis]] : kept);
}

/** The longest error message sent; graphql-js prints whole literals and values into some of its own. */
const MAX_MESSAGE_CHARACTERS = 500;

/** A message with every quoted string (as graphql-js and our errors quote values: JSON) cut to a short prefix, and the whole bounded. */
export function boundedMessage(message: string): string {
  const quoted = message.replace(/"((?:[^"\\]|\\.)*)"/g, (whole, inner: string) =>
    inner.length > MAX_QUOTED_CHARACTERS ? `"${cut(inner)}"` : whole,
  );
  return quoted.length > MAX_MESSAGE_CHARACTERS ? quoted.slice(0, MAX_MESSAGE_CHARACTERS) + ellipsis : quoted;
}
