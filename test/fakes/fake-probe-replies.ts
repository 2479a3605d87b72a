import { callNeedle } from '../../src/probes/program-calls.js';
import { probeCases, type ProbeCase } from '../../src/probes/probe-conversations.js';
import type { ChatScript, FakeChatReply } from './fake-router.js';

/** What the fake routing provider answers one probe call with. */
export type ProbeReplyKind =
  /** A bare program that passes its case (every needed call; or the missing view opened, nothing else). */
  | 'clean'
  /** The clean program in a Markdown fence. */
  | 'fenced'
  /** The clean program after leaked `<think>` tags. */
  | 'think-tags'
  /** A call to a tool that is not `submit_program`. */
  | 'stray-tool-call'
  /** A missing-docview program that calls the undocumented function. */
  | 'called-undocumented'
  /** HTTP 500 with an error body. */
  | 'error'
  /** HTTP 429 with `Retry-After: 0`. */
  | 'rate-limited';

const byMessages = new Map<string, ProbeCase>(probeCases(null).map((c) => [JSON.stringify(c.messages), c]));

/** The probe case a chat request replays, found by its messages; throws for anything else. */
export function probeCaseOf(body: Record<string, unknown>): ProbeCase {
  const found = byMessages.get(JSON.stringify(body.messages));
  if (!found) throw new Error('the chat request does not replay a probe case');
  return found;
}

/** The program that passes `probeCase`, in its arm's spelling. */
export function cleanProgram(probeCase: ProbeCase): string {
  const call = (spelling: string, arg: string) => `${callNeedle(spelling)}(${arg})`;
  if (probeCase.scenario === 'baseline') return probeCase.needed.map((spelling) => call(spelling, '"PLAN.md"')).join('\n');
  return call(probeCase.openCall, JSON.stringify(probeCase.viewKey));
}

function completion(toolName: string, program: string, provider: string): unknown {
  return {
    id: 'gen-probe',
    object: 'chat.completion',
    provider,
    choices: [{
      index: 0,
      finish_reason: 'tool_calls',
      native_finish_reason: 'tool_use',
      message: {
        role: 'assistant',
        content: '',
        reasoning: 'Reading the spec first.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: toolName, arguments: JSON.stringify({ program }) } }],
      },
    }],
    usage: { prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230, cost: 0.0005 },
  };
}

/** The fake's answer of `kind` to one probe call. */
export function probeReply(kind: ProbeReplyKind, body: Record<string, unknown>, options: { provider?: string; delayMs?: number } = {}): FakeChatReply {
  const probeCase = probeCaseOf(body);
  const provider = options.provider ?? ((body.provider as { order?: string[] } | undefined)?.order?.[0] ?? 'DeepInfra');
  const clean = cleanProgram(probeCase);
  const reply = (answer: Omit<FakeChatReply, 'delayMs'>): FakeChatReply => (options.delayMs ? { ...answer, delayMs: options.delayMs } : answer);
  switch (kind) {
    case 'clean':
      return reply({ body: completion('submit_program', clean, provider) });
    case 'fenced':
      return reply({ body: completion('submit_program', `\`\`\`\n${clean}\n\`\`\``, provider) });
    case 'think-tags':
      return reply({ body: completion('submit_program', `<think>plan it</think>\n${clean}`, provider) });
    case 'stray-tool-call':
      return reply({ body: completion('run_shell', clean, provider) });
    case 'called-undocumented': {
      const target = probeCase.forbidden[0] ?? probeCase.needed[0]!;
      return reply({ body: completion('submit_program', `${clean}\n${callNeedle(target)}("x")`, provider) });
    }
    case 'error':
      return reply({ status: 500, body: { error: { code: 500, message: 'Upstream provider failed' } } });
    case 'rate-limited':
      return reply({ status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 429, message: 'Rate limit exceeded' } } });
  }
}

/** A chat script answering each probe call with the kind `choose` picks for its case. */
export function scriptProbe(choose: (probeCase: ProbeCase, body: Record<string, unknown>) => ProbeReplyKind, options: { delayMs?: number } = {}): ChatScript {
  return (body) => probeReply(choose(probeCaseOf(body), body), body, options);
}
