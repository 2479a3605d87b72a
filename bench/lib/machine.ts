import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** One line naming the CPU and the load average, printed with every figure (the machine is shared). */
export function machineLine(): string {
  return `CPU ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`;
}

/** CPU time the whole machine has spent since boot, summed over its cores, in clock ticks. */
export interface MachineTicks {
  busy: number;
  total: number;
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
  return { busy, total: busy + idle! + iowait! };
}
