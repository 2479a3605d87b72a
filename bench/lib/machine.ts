import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { descendantsOf } from '../../chaos/lib/supervised-service.js';

/** One line naming the CPU and the load average, printed with every figure (the machine is shared). */
export function machineLine(): string {
  return `CPU ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`;
}

/** CPU time the whole machine has spent since boot, summed over its cores, in clock ticks. */
export interface MachineTicks {
  busy: number;
  total: number;
  /**
   * The part of `busy` spent by this process and every process it started, and theirs (every
   * thread; children already reaped included): on a machine others share, the bench's own.
   */
  own: number;
  /** `own` by program: `this process` (the bench, its worker threads included), then each child's name (`node`, `postgres`, `redis-server`). */
  ownByProgram: Record<string, number>;
  /**
   * Times each program's main threads gave up the CPU to wait (voluntary context switches,
   * /proc/<pid>/status): for a Node process, about how often its event loop went idle.
   */
  waitsByProgram: Record<string, number>;
}

/**
 * The machine's CPU ticks from /proc/stat (every process and thread, Redis and the kernel's
 * included); null where there is no /proc (not Linux). Busy is all but idle and I/O wait.
 */
export function machineTicks(): MachineTicks | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  // cpu user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1, 9).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  const { ownByProgram, waitsByProgram } = treeTicks(process.pid);
  return { busy, total: busy + idle! + iowait!, own: Object.values(ownByProgram).reduce((sum, ticks) => sum + ticks, 0), ownByProgram, waitsByProgram };
}

/** `a` + `sign` x `b`, figure by figure (-1: the ticks between two readings). */
export function addTicks(a: MachineTicks, b: MachineTicks, sign: 1 | -1 = 1): MachineTicks {
  const add = (x: Record<string, number>, y: Record<string, number>) => {
    const sum = { ...x };
    for (const [program, count] of Object.entries(y)) sum[program] = (sum[program] ?? 0) + sign * count;
    return sum;
  };
  return {
    busy: a.busy + sign * b.busy, total: a.total + sign * b.total, own: a.own + sign * b.own,
    ownByProgram: add(a.ownByProgram, b.ownByProgram), waitsByProgram: add(a.waitsByProgram, b.waitsByProgram),
  };
}

/**
 * CPU ticks of `root` and its descendants (user and system time, with their reaped
 * children's) by program, from /proc/<pid>/stat, and their main threads' waits.
 */
function treeTicks(root: number): Pick<MachineTicks, 'ownByProgram' | 'waitsByProgram'> {
  const byProgram: Record<string, number> = {};
  const waitsByProgram: Record<string, number> = {};
  for (const pid of [root, ...descendantsOf(root)]) {
    let stat: string;
    let status: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid ... utime stime cutime cstime` (fields 14-17); comm may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const program = pid === root ? 'this process' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    byProgram[program] = (byProgram[program] ?? 0) + Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    waitsByProgram[program] = (waitsByProgram[program] ?? 0) + Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return { ownByProgram: byProgram, waitsByProgram };
}
