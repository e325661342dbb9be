/**
 * Preloaded into the gateway by the bench with BENCH_PROFILE_DIR (`node --import <this file>`): a CPU
 * profile of the whole process, written there when it exits. Node 20 refuses `--cpu-prof` in
 * NODE_OPTIONS, and the start script must run unchanged, so the profiler is started from inside.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const directory = process.env.BENCH_PROFILE_DIR;
// Made now: an exit handler that fails to write loses the whole profile silently.
mkdirSync(directory, { recursive: true });
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');

// The in-thread inspector answers synchronously, so the profile is written even from 'exit'.
process.on('exit', () => {
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(directory, `gateway-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
