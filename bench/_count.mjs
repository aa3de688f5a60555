import module from 'node:module';
module.enableCompileCache?.();
const seen = new Set();
module.registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.add(r.url); return r; } });
const t0 = performance.now();
await import(process.argv[2]);
const arr=[...seen];
const pk = {};
for (const u of arr) { const m = u.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/); const k = m ? m[1] : (u.includes('/src/') ? 'src' : u.slice(0,30)); pk[k]=(pk[k]??0)+1; }
console.log(arr.length, 'modules', (performance.now()-t0).toFixed(0),'ms');
console.log(Object.entries(pk).sort((a,b)=>b[1]-a[1]).slice(0,40).map(([k,v])=>`${v} ${k}`).join('\n'));
