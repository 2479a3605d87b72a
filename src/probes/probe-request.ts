import type { ProbeCase } from './probe-conversations.js';

/** The single tool a probe offers and forces: gg's own. */
export const SUBMIT_PROGRAM_TOOL = {
  type: 'function',
  function: {
    name: 'submit_program',
    description: 'Submit the program to run this turn.',
    parameters: {
      type: 'object',
      properties: { program: { type: 'string', description: 'The complete program, bare code.' } },
      required: ['program'],
      additionalProperties: false,
    },
  },
} as const;

/**
 * The chat completion body of one probe call: the case's messages with `submit_program`
 * offered and forced, no temperature, a fresh session per call (so no call reads another's
 * prompt cache), and the provider pinned with fallbacks off when the probe names one.
 */
export function probeRequestBody(options: { model: string; probeCase: ProbeCase; maxTokens: number; provider: string | null; sessionId: string }) {
  return {
    model: options.model,
    messages: options.probeCase.messages,
    tools: [SUBMIT_PROGRAM_TOOL],
    tool_choice: { type: 'function', function: { name: 'submit_program' } },
    max_tokens: options.maxTokens,
    usage: { include: true },
    session_id: options.sessionId,
    prompt_cache_key: options.sessionId,
    ...(options.provider ? { provider: { order: [options.provider], allow_fallbacks: false } } : {}),
  };
}
