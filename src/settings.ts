/**
 * Reads settings from the environment, and records each one it is asked for with its default as
 * docs/configuration.md words it: test/configuration-docs.test.ts compares the two, so the reference
 * cannot drift from the code. An empty value counts as unset.
 */
export class Settings {
  /** Every setting read so far, with its default. */
  readonly defaults = new Map<string, string>();
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env;
  }

  /** The value of `name`, or undefined; `shown` words what applies without it. */
  optional(name: string, shown = 'unset'): string | undefined {
    const recorded = this.defaults.get(name);
    if (recorded !== undefined && recorded !== shown)
      throw new Error(`${name} is read with two defaults, "${recorded}" and "${shown}"`);
    this.defaults.set(name, shown);
    return this.#env[name] || undefined;
  }

  text(name: string, fallback: string): string {
    return this.optional(name, fallback) ?? fallback;
  }

  /** On unless 0, false, no or off. */
  flag(name: string, fallback: boolean): boolean {
    const value = this.optional(name, String(fallback));
    return value === undefined ? fallback : !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
  }

  integer(name: string, fallback: number, min = 1): number {
    const value = this.optional(name, String(fallback));
    return value === undefined ? fallback : integerOf(name, value, min);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.optional(name, fallback);
    if (value === undefined) return fallback;
    if (!allowed.includes(value as T)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
    return value as T;
  }

  /** Refuses `dependents` set while what they belong to is off, rather than ignoring them. */
  onlyWith(on: boolean, owner: string, dependents: readonly string[], off: string): void {
    const stray = on ? undefined : dependents.find((name) => this.#env[name]);
    if (stray) throw new Error(`${stray} is set but ${owner} is not (${off})`);
  }
}

export function integerOf(name: string, value: string, min: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new Error(`${name} must be an integer of at least ${min}, got "${value}"`);
  return parsed;
}

/**
 * The URL with its passwords replaced, for messages: the user's (up to the last `@`, so a password
 * holding `/`, `?`, `#` or `@` unencoded is hidden whole) and any parameter named like one
 * (`password`, `sslpassword`).
 */
export function redacted(url: string): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(url)?.[0] ?? '';
  let rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const userInfo = at < 0 ? '' : rest.slice(0, at);
  if (userInfo.includes(':')) rest = `${userInfo.slice(0, userInfo.indexOf(':'))}:***${rest.slice(at)}`;
  return scheme + rest.replace(/([?&][^=&#]*password[^=&#]*=)[^&#]*/gi, '$1***');
}
