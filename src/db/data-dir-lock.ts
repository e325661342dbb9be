import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseStartError } from './start-error.js';

/** The file whose presence, holding a live pid, says that a process has the embedded database open. */
export function lockPath(dataDir: string): string {
  return join(dataDir, 'gateway.lock');
}

export class DataDirInUseError extends DatabaseStartError {
  constructor(dataDir: string, pid: number) {
    super(`data directory ${dataDir} is in use by process ${pid}`);
  }
}

export interface DataDirLock {
  release(): void;
}

/** Whether a process with this pid runs (a lock's holder, a bench run's owner). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid written in a lock file; undefined when the file is gone or holds no pid. */
function readHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the live process that holds the data directory, if one does. */
export function liveHolder(dataDir: string): number | undefined {
  const pid = readHolder(lockPath(dataDir));
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

/**
 * Creates the lock file with our pid in one step: written aside, then hard-linked into place, which
 * fails if the file exists. So no process ever reads a lock file that has no pid yet.
 */
function tryCreate(path: string): boolean {
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${process.pid}\n`);
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Moves a dead process's lock out of the way. The rename is atomic, so of two processes taking
 * over at once, one moves the stale file; the other may move the first one's fresh lock, which it
 * sees by the pid inside and puts back.
 */
function removeStale(path: string, stalePid: number | undefined): void {
  const moved = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // already moved by another process
    throw error;
  }
  if (readHolder(moved) !== stalePid) {
    try {
      linkSync(moved, path);
    } catch {
      // Yet another process has locked it meanwhile: that lock stands.
    }
  }
  unlinkSync(moved);
}

/**
 * Makes this process the one that holds `dataDir`: throws DataDirInUseError when a live process
 * holds it; takes over a lock left by a process that is gone.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = lockPath(dataDir);
  while (!tryCreate(path)) {
    const holder = readHolder(path);
    if (holder !== undefined && isAlive(holder)) throw new DataDirInUseError(dataDir, holder);
    removeStale(path, holder);
  }
  return {
    // Only our own lock: after a takeover by mistake, another process's lock stays.
    release: () => void (readHolder(path) === process.pid && unlinkSync(path)),
  };
}
