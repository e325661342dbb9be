/**
 * Summarizes a V8 CPU profile (`BENCH_PROFILE_DIR=dir npm run bench` writes the gateway's; the
 * largest file is the main thread, the small one tsx's loader thread): self time by package and by
 * function, the heaviest first, as shares of the busy time (idle excluded: the profile spans the
 * floor's runs, when the gateway waits).
 * Usage: tsx bench/profile-summary.ts <file.cpuprofile> [rows]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

/** node_modules/<package> (scoped too), the project's own file, or V8/Node internals. */
function where(url: string): string {
  if (!url) return '(native / V8)';
  const match = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (match) return match[1];
  if (url.startsWith('node:')) return 'node internals';
  const own = url.match(/\/(src|bench)\/.*$/);
  return own ? own[0].slice(1) : url;
}

const packages = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(idle)') {
    idle += delta;
    return;
  }
  total += delta;
  const place = where(frame.url);
  packages.set(place, (packages.get(place) ?? 0) + delta);
  const name = `${frame.functionName || '(anonymous)'}  ${place}:${frame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + delta);
});

const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, time] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(
      `${((time / total) * 100).toFixed(1).padStart(5)}%  ${(time / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle`);
print('self time by package', packages);
print('self time by function', functions);
