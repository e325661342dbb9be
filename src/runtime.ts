/** The Node.js line the gateway is built, tested, measured and documented for (`.nvmrc`, `engines`). */
export const SUPPORTED_NODE_MAJOR = 24;

/**
 * The one line `npm start` and `npm test` print on an older Node.js than the supported one, which
 * still runs them; undefined on the supported line or a later one.
 */
export function runtimeNotice(version = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= SUPPORTED_NODE_MAJOR) return undefined;
  const status = major === 22 ? 'still supported' : 'past its end of life';
  return `Running on Node.js ${version} (${status}); Node.js ${SUPPORTED_NODE_MAJOR} is the supported runtime (.nvmrc)`;
}

/** Prints that line, if any: once per command, at the server's start and in the test run's set-up. */
export function printRuntimeNotice(): void {
  const notice = runtimeNotice();
  if (notice) console.log(notice);
}
