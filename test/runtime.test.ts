import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runtimeNotice, SUPPORTED_NODE_MAJOR } from '../src/runtime.js';
import { startServer } from './helpers/processes.js';

describe('the runtime', () => {
  it('is Node.js 24; an older Node.js is named in one line, 22 as still supported, 20 as past its end of life', () => {
    expect(SUPPORTED_NODE_MAJOR).toBe(24);
    expect(runtimeNotice('20.20.2')).toBe(
      'Running on Node.js 20.20.2 (past its end of life); Node.js 24 is the supported runtime (.nvmrc)',
    );
    expect(runtimeNotice('22.23.3')).toBe(
      'Running on Node.js 22.23.3 (still supported); Node.js 24 is the supported runtime (.nvmrc)',
    );
    expect(runtimeNotice('24.21.0')).toBeUndefined();
    expect(runtimeNotice('26.1.0')).toBeUndefined();
  });

  it('the compiled server says it once, on whatever `node` the start script finds', async () => {
    const version = execFileSync('sh', ['-c', 'node --version'], { encoding: 'utf8' }).trim().slice(1);
    // A start that fails at once (a data directory it cannot write) still prints it first.
    const { lines, exit } = startServer({ DATA_DIR: '/proc/not-writable', PORT: '0' });
    expect(await exit).toBe(1);
    const notice = runtimeNotice(version);
    expect(lines.out).toEqual(notice ? [notice] : []);
  });
});
