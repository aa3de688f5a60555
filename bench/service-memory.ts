/**
 * The memory of a Tributary process (with the processes it started) together with the embedded
 * PostgreSQL it runs: PSS
 * (proportional set size: shared pages counted once across the processes that share them, so the
 * PostgreSQL backends' shared buffers are not counted once per backend) summed over the service,
 * its postmaster (from DATA_DIR/postgres/postmaster.pid) and every child of the postmaster, read
 * from /proc/<pid>/smaps_rollup (Linux ≥ 4.14).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0; // gone meanwhile (a backend that ended)
  }
}

/**
 * Every process's children, from one pass over /proc (each pass reads a stat file per process on
 * the machine: one per sample, not one per process of the tree, keeps the sampler, which runs in
 * the measured process, from costing it a second of CPU per import).
 */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Field 4 (ppid) comes after the command in parentheses, which may itself hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const siblings = children.get(ppid);
      if (siblings) siblings.push(Number(name));
      else children.set(ppid, [Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The embedded server's postmaster for DATA_DIR, while it runs. */
export function postmasterOf(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** `root` and every process below it. */
function treeOf(root: number, children: Map<number, number[]>): number[] {
  const tree = [root];
  for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

/**
 * PSS in MB of `servicePid` with every process it started (an import's isolated reader, say) plus
 * its embedded PostgreSQL (every process of it), each process counted once.
 */
export function serviceAndDatabasePssMb(servicePid: number, dataDir: string | undefined) {
  const postmaster = dataDir ? postmasterOf(dataDir) : undefined;
  const children = childrenByParent();
  const databasePids = postmaster ? treeOf(postmaster, children) : [];
  const servicePids = treeOf(servicePid, children).filter((pid) => !databasePids.includes(pid));
  const serviceKb = servicePids.map((pid) => ({ pid, kb: pssKb(pid) }));
  const service = serviceKb.reduce((sum, { kb }) => sum + kb, 0);
  const database = databasePids.reduce((sum, pid) => sum + pssKb(pid), 0);
  return {
    serviceMb: service / 1024,
    databaseMb: database / 1024,
    totalMb: (service + database) / 1024,
    /** Each process of the service side (the service first, then what it started), MB. */
    serviceProcesses: serviceKb.map(({ pid, kb }) => ({ pid, mb: kb / 1024 })),
  };
}

export type PssSample = ReturnType<typeof serviceAndDatabasePssMb>;

/**
 * Samples the total every `everyMs` until stopped; returns the largest seen. `onSample` sees every
 * sample (a timeline of which process held what: bench/apple-import.ts BENCH_IMPORT_PSS_TRACE).
 */
export function samplePeak(
  servicePid: number,
  dataDir: string | undefined,
  everyMs = 100,
  onSample?: (sample: PssSample) => void,
) {
  let peak: Omit<PssSample, 'serviceProcesses'> = { serviceMb: 0, databaseMb: 0, totalMb: 0 };
  const take = () => {
    const now = serviceAndDatabasePssMb(servicePid, dataDir);
    onSample?.(now);
    if (now.totalMb > peak.totalMb) peak = now;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}
