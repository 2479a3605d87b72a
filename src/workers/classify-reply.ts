import { classifyReply, type Classification, type ProbeReply } from '../probes/classify-reply.js';
import type { CaseCheck } from '../probes/probe-labels.js';

export interface ClassifyTask {
  /** One or more replies with their cases; a batch spreads the thread hop over many. */
  items: Array<{ reply: ProbeReply; check: CaseCheck }>;
}

/** Piscina task: classifies probe replies off the event loop that serves HTTP. */
export default function classifyReplies(task: ClassifyTask): Classification[] {
  return task.items.map(({ reply, check }) => classifyReply(reply, check));
}
