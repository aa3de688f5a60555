// Sums a profile that bench/webhook-delivery.ts wrote (BENCH_CPU_PROFILE, BENCH_HEAP_PROFILE) by
// function and by module: self time of a .cpuprofile, bytes allocated of a .heapprofile, each
// also per delivery when the count is given. A module is a file of this project (src/…, bench/…),
// an npm package, or a Node built-in.
//
//   node bench/profile-summary.ts /tmp/prof/engine.cpuprofile 20000 [rows]
import { readFileSync } from 'node:fs';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type CpuNode = { id: number; callFrame: CallFrame };
type CpuProfile = { nodes: CpuNode[]; samples: number[]; timeDeltas: number[] };
type HeapNode = { callFrame: CallFrame; selfSize: number; children: HeapNode[] };

const [file, deliveriesArgument, rowsArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-summary.ts <file> [deliveries] [rows]');
const deliveries = Number(deliveriesArgument ?? 0);
const rows = Number(rowsArgument ?? 30);

function moduleOf(url: string): string {
  if (!url) return '(VM: native, GC, idle)';
  const found = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (found) return `npm:${found[1]}`;
  const own = /\/((?:src|bench)\/.*)$/.exec(url);
  return own ? own[1]! : url;
}

const byFunction = new Map<string, number>();
const byModule = new Map<string, number>();
function add(frame: CallFrame, amount: number) {
  const module = moduleOf(frame.url);
  const name = `${frame.functionName || '(anonymous)'} ${module}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + amount);
  byModule.set(module, (byModule.get(module) ?? 0) + amount);
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | { head: HeapNode };
const heap = 'head' in profile;
if ('head' in profile) {
  const walk = (node: HeapNode) => {
    add(node.callFrame, node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
} else {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  for (let index = 0; index < profile.samples.length; index++)
    add(nodes.get(profile.samples[index]!)!.callFrame, profile.timeDeltas[index] ?? 0);
}

let total = 0;
for (const amount of byModule.values()) total += amount;
// Heap: bytes; CPU: microseconds.
const shown = (amount: number) =>
  heap ? `${(amount / 1e6).toFixed(1)} MB` : `${(amount / 1000).toFixed(0)} ms`;
const perDelivery = (amount: number) =>
  deliveries > 0 ? ` ${(amount / deliveries).toFixed(heap ? 0 : 1)} ${heap ? 'B' : 'µs'}/delivery` : '';
console.log(`${file}: ${shown(total)}${perDelivery(total)}`);
for (const [title, table] of [
  ['by module', byModule],
  ['by function', byFunction],
] as const) {
  console.log(`--- ${title}`);
  for (const [name, amount] of [...table].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(
      `${shown(amount).padStart(10)} ${((100 * amount) / total).toFixed(1).padStart(5)} %${perDelivery(amount)}  ${name}`,
    );
}
