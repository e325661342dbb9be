import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = Omit<ParseArgsConfig, 'args' | 'strict'>;

/**
 * The arguments of a command (`npm run <script> -- ...`): `--help` or `-h` prints `usage` and exits 0;
 * an argument the command does not take prints why and the usage, and exits 2.
 */
export function commandLine<T extends Options>(usage: string, options: T = {} as T) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage.trim());
    process.exit(0);
  }
  try {
    return parseArgs({ ...options, args, strict: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage.trim()}`);
    process.exit(2);
  }
}
