import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, liveHolder, lockPath } from '../src/db/data-dir-lock.js';
import { scratchDirectory } from './helpers/scratch.js';

const newDataDir = () => scratchDirectory('gateway-lock-');
/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('the data directory lock', () => {
  it('holds our pid until released', () => {
    const dataDir = newDataDir();
    const lock = acquireDataDirLock(dataDir);
    expect(readFileSync(lockPath(dataDir), 'utf8').trim()).toBe(String(process.pid));
    expect(liveHolder(dataDir)).toBe(process.pid);
    lock.release();
    expect(existsSync(lockPath(dataDir))).toBe(false);
  });

  it('is refused while a live process holds it, naming the directory and the process', () => {
    const dataDir = newDataDir();
    writeFileSync(lockPath(dataDir), `${process.ppid}\n`);
    expect(() => acquireDataDirLock(dataDir)).toThrow(`data directory ${dataDir} is in use by process ${process.ppid}`);
  });

  it('is taken over from a process that is gone, or from a file that names none', () => {
    for (const content of [`${deadPid()}\n`, '']) {
      const dataDir = newDataDir();
      writeFileSync(lockPath(dataDir), content);
      expect(liveHolder(dataDir)).toBeUndefined();
      acquireDataDirLock(dataDir).release();
      expect(existsSync(lockPath(dataDir))).toBe(false);
    }
  });

  it("leaves another process's lock in place when released", () => {
    const dataDir = newDataDir();
    const lock = acquireDataDirLock(dataDir);
    writeFileSync(lockPath(dataDir), `${process.ppid}\n`);
    lock.release();
    expect(readFileSync(lockPath(dataDir), 'utf8').trim()).toBe(String(process.ppid));
  });
});
