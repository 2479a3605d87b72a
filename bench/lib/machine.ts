import { cpus, loadavg } from 'node:os';

/** One line naming the CPU and the load average, printed with every figure (the machine is shared). */
export function machineLine(): string {
  return `CPU ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}; load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`;
}
