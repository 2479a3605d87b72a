import { blankCallArguments, hasCall, stripStringLiterals } from './program-calls.js';
import { PASSING_LABELS, type CaseCheck, type ProbeLabel } from './probe-labels.js';

/** What came back for one call: a completion body, or why there is none (non-2xx, transport). */
export type ProbeReply = { ok: true; body: unknown } | { ok: false; error: string };

export interface Classification {
  /** Null when the call is void (`error` says why). */
  label: ProbeLabel | null;
  pass: boolean;
  error: string | null;
  provider: string | null;
  finishReason: string | null;
  nativeFinishReason: string | null;
  /** The submitted `program`, or null when none was submitted. */
  programText: string | null;
  responseText: string | null;
  reasoningText: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** USD, the reply's `usage.cost`. */
  cost: number | null;
}

type Json = Record<string, unknown>;

const TOOL_TOKENS = ['<|open|>', '<|sep|>', '<|close|>', '<|tool_call'];
const XML_TOOLS = ['<function ', '<function>', '<function_call', '<tool_call', '<tool_result', '<invoke ', '</tool'];
const COT_MARKERS = ['<think>', '</think>', '◁think▷'];
const FENCE = '```';

/**
 * Classifies one probe reply against its case: a pure function of the two, so it runs the
 * same in the worker pool and on the main thread. Order (first match wins): a void call; no
 * submission (the first `submit_program` call carrying a program is the one read); the program's shape (`empty`, `tool-token`, `xml-pseudo-tools`, `cot-leak`,
 * `fenced`); then the scenario check on the program with string literals stripped.
 */
export function classifyReply(reply: ProbeReply, check: CaseCheck): Classification {
  const blank: Classification = {
    label: null, pass: false, error: null, provider: null, finishReason: null, nativeFinishReason: null,
    programText: null, responseText: null, reasoningText: null, promptTokens: null, completionTokens: null, cost: null,
  };
  if (!reply.ok) return { ...blank, error: reply.error };
  const body = asObject(reply.body);
  if (!body) return { ...blank, error: 'The reply is not a JSON object.' };
  const usage = asObject(body.usage);
  const read: Classification = {
    ...blank,
    provider: text(body.provider),
    promptTokens: count(usage?.prompt_tokens),
    completionTokens: count(usage?.completion_tokens),
    cost: amount(usage?.cost),
  };
  const bodyError = asObject(body.error);
  if (bodyError || body.error !== undefined) {
    return { ...read, error: `The reply carries an error: ${text(bodyError?.message) ?? JSON.stringify(body.error).slice(0, 200)}` };
  }
  const choice = Array.isArray(body.choices) ? asObject(body.choices[0]) : null;
  if (!choice) return { ...read, error: 'The reply has no choices[0].' };
  const message = asObject(choice.message) ?? {};
  const answered: Classification = {
    ...read,
    finishReason: text(choice.finish_reason),
    nativeFinishReason: text(choice.native_finish_reason),
    responseText: text(message.content),
    reasoningText: text(message.reasoning) ?? text(message.reasoning_content),
  };

  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(asObject) : [];
  if (calls.length === 0) return labelled(answered, 'no-submission');
  // As the original's `parse_reply`: the submit calls are read in order until one carries a program.
  const submits = calls.map((call) => asObject(call?.function)).filter((fn) => fn?.name === 'submit_program');
  if (submits.length === 0) return labelled(answered, 'stray-tool-call');
  const program = submits.map((fn) => programOf(fn?.arguments)).find((found) => found !== null) ?? null;
  if (program === null) return labelled(answered, 'no-program');
  return labelled({ ...answered, programText: program }, programLabel(program, check));
}

/** The label of a submitted program: its shape first, then the scenario check. */
export function programLabel(program: string, check: CaseCheck): ProbeLabel {
  const trimmed = program.trim();
  if (trimmed === '') return 'empty';
  if (TOOL_TOKENS.some((token) => trimmed.includes(token))) return 'tool-token';
  if (XML_TOOLS.some((token) => trimmed.includes(token))) return 'xml-pseudo-tools';
  if (COT_MARKERS.some((token) => trimmed.includes(token))) return 'cot-leak';
  if (trimmed.includes(FENCE)) return 'fenced';
  const stripped = stripStringLiterals(trimmed);
  if (check.scenario === 'baseline') {
    return check.needed.every((call) => hasCall(stripped, call)) ? 'correct-calls' : 'missing-calls';
  }
  const opened = hasCall(stripped, check.openCall) && check.viewKey !== null && trimmed.includes(check.viewKey);
  const calls = blankCallArguments(stripped, check.openCall);
  if (check.forbidden.some((call) => hasCall(calls, call))) return 'called-undocumented';
  return opened ? 'docview-first' : 'no-docview';
}

function labelled(classification: Classification, label: ProbeLabel): Classification {
  return { ...classification, label, pass: PASSING_LABELS.has(label) };
}

/** `arguments` is a JSON string on the wire; some providers send the object itself. */
function programOf(args: unknown): string | null {
  let parsed: unknown = args;
  if (typeof args === 'string') {
    try {
      parsed = JSON.parse(args);
    } catch {
      return null;
    }
  }
  const program = asObject(parsed)?.program;
  return typeof program === 'string' ? program : null;
}

function asObject(value: unknown): Json | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : null;
}

function amount(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
