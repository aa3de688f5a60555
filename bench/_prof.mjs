import inspector from 'node:inspector/promises';
import module from 'node:module';
import { writeFileSync } from 'node:fs';
module.enableCompileCache?.();
const session = new inspector.Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 250 });
await session.post('Profiler.start');
const t0 = performance.now();
const { main } = await import('../src/runtime/main.ts');
void main(['serve']);
for (;;) {
  const ok = await fetch(`http://127.0.0.1:${process.env.PORT}/ready`).then((r) => r.ok, () => false);
  if (ok) break;
  await new Promise((r) => setTimeout(r, 10));
}
console.error('ready in', performance.now() - t0);
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/eng/startup.cpuprofile', JSON.stringify(profile));
process.kill(process.pid, 'SIGTERM');
