/** A start-up failure the operator can fix: reported as one line, without a stack trace. */
export class DatabaseStartError extends Error {}
