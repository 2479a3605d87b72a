import { Piscina } from 'piscina';
import { toError } from '../errors.js';
import type { Classification, ProbeReply } from './classify-reply.js';
import type { CaseCheck } from './probe-labels.js';
import type { ClassifyTask } from '../workers/classify-reply.js';
import { poolFailures } from '../workers/pool-failures.js';
import { workerFile } from '../workers/worker-file.js';

export interface ClassifyPool {
  classify(reply: ProbeReply, check: CaseCheck): Promise<Classification>;
  classifyMany(items: ClassifyTask['items']): Promise<Classification[]>;
  close(): Promise<void>;
}

/**
 * Worker threads that classify probe replies (src/workers/classify-reply.ts), so a probe
 * landing thousands of replies never stalls the HTTP event loop on string scanning. One
 * thread by default: a probe's pace is set by the routing provider, not by classification.
 */
export function createClassifyPool(options: {
  threads?: number;
  /** Errors of a thread outside any task, which also fail the tasks waiting (default: `process.emitWarning`). */
  onError?: (error: Error) => void;
} = {}): ClassifyPool {
  const threads = options.threads ?? 1;
  const piscina = new Piscina<ClassifyTask, Classification[]>({
    filename: workerFile('classify-reply'),
    minThreads: threads,
    maxThreads: threads,
    // Idle threads must not park in Atomics.wait: the pool lives as long as the process.
    atomics: 'disabled',
  });
  const failures = poolFailures(piscina, options.onError ?? ((error) => process.emitWarning(error)));
  const run = (items: ClassifyTask['items']) => failures.run((signal) => piscina.run({ items }, { signal })).catch((error: unknown) => {
    throw toError(error, 'classifying probe replies');
  });
  return {
    async classify(reply, check) {
      const [classification] = await run([{ reply, check }]);
      return classification!;
    },
    classifyMany: run,
    close: () => piscina.destroy(),
  };
}
