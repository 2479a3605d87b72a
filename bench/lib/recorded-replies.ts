import { probeCases, type ProbeCase } from '../../src/probes/probe-conversations.js';
import { callNeedle } from '../../src/probes/program-calls.js';
import type { ProbeReply } from '../../src/probes/classify-reply.js';

/** A passing program for a case, in its arm's spelling, padded to a realistic length with string-heavy code. */
function program(probeCase: ProbeCase, i: number): string {
  const filler = Array.from({ length: 12 }, (_, n) => `const note${n} = "step ${n} of the plan: see files.writeFile docs, don't call shell.shell (${i})";`).join('\n');
  const calls = probeCase.scenario === 'baseline'
    ? probeCase.needed.map((spelling) => `${callNeedle(spelling)}("PLAN.md", notes.join("\\n"));`).join('\n')
    : `${callNeedle(probeCase.openCall)}(${JSON.stringify(probeCase.viewKey)});`;
  return `${filler}\nconst notes = [note0, note1];\n${calls}`;
}

function completion(toolName: string, text: string): ProbeReply {
  return {
    ok: true,
    body: {
      provider: 'DeepInfra',
      choices: [{ finish_reason: 'tool_calls', message: { content: '', reasoning: 'Reading the spec.', tool_calls: [{ function: { name: toolName, arguments: JSON.stringify({ program: text }) } }] } }],
      usage: { prompt_tokens: 1200, completion_tokens: 300, cost: 0.0004 },
    },
  };
}

/** `count` replies over every case, in the mix a probe meets: mostly clean, some shape faults, strays and errors. */
export function recordedReplies(count: number): Array<{ reply: ProbeReply; check: ProbeCase }> {
  const cases = probeCases(null);
  return Array.from({ length: count }, (_, i) => {
    const check = cases[i % cases.length]!;
    const clean = program(check, i);
    const kind = i % 10;
    const reply = kind === 7 ? completion('submit_program', `\`\`\`\n${clean}\n\`\`\``)
      : kind === 8 ? completion('submit_program', `<think>hmm</think>${clean}`)
        : kind === 9 ? (i % 20 === 9 ? completion('run_shell', clean) : { ok: false as const, error: 'HTTP 500' })
          : completion('submit_program', clean);
    return { reply, check };
  });
}
