/**
 * Undo steps (stop children, drop the database) run once, in reverse order, whether the bench ends
 * normally, throws, or is interrupted: a bench must not leave databases or servers behind.
 */
const steps: { name: string; run: () => Promise<void> }[] = [];
let running: Promise<void> | undefined;

export function onCleanup(name: string, run: () => Promise<void>): void {
  steps.push({ name, run });
}

export function cleanup(): Promise<void> {
  running ??= (async () => {
    for (const step of steps.reverse()) {
      try {
        await step.run();
      } catch (error) {
        console.error(`cleanup: ${step.name} failed: ${(error as Error).message}`);
      }
    }
  })();
  return running;
}

/** Ctrl-C and kill run the cleanup, then exit; a second signal while cleaning up is ignored (it is bounded). */
export function cleanupOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping the servers and dropping the bench database`);
      void cleanup().finally(() => process.exit(130));
    });
  }
}
