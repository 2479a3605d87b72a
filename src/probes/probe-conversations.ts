import { readFileSync } from 'node:fs';
import type { CaseCheck, ProbeScenario } from './probe-labels.js';

/** Program-language arms, in the order a probe of every arm runs them (wire ids). */
export const PROBE_LANGUAGES = [
  'typescript', 'javascript', 'python', 'ruby', 'purescript', 'java', 'kotlin', 'rust', 'swift', 'cpp', 'csharp',
] as const;

export type ProbeLanguage = (typeof PROBE_LANGUAGES)[number];

/** An OpenAI-style chat message, as a case's conversation holds it and the request sends it. */
export type ChatMessage = Record<string, unknown> & { role: 'system' | 'user' | 'assistant' | 'tool' };

/** One case of an arm: gg's first-turn request for a task, with what its scenario check needs. */
export interface ProbeCase extends CaseCheck {
  language: ProbeLanguage;
  prompt: string;
  scenario: ProbeScenario;
  messages: ChatMessage[];
}

interface ArmFile {
  language: string;
  displayName: string;
  cases: Array<Omit<ProbeCase, 'language'>>;
}

const cache = new Map<ProbeLanguage, ProbeCase[]>();

export const isProbeLanguage = (value: string): value is ProbeLanguage => (PROBE_LANGUAGES as readonly string[]).includes(value);

/** The cases of one arm, read from `conversations/<arm>.json` beside this module (once per process). */
export function armCases(language: ProbeLanguage): ProbeCase[] {
  const cached = cache.get(language);
  if (cached) return cached;
  const file = new URL(`./conversations/${language}.json`, import.meta.url);
  const arm = JSON.parse(readFileSync(file, 'utf8')) as ArmFile;
  if (arm.language !== language || !Array.isArray(arm.cases) || arm.cases.length === 0) {
    throw new Error(`The probe conversations file ${file.pathname} does not hold the ${language} arm's cases.`);
  }
  const cases = arm.cases.map((item) => ({ ...item, language }));
  cache.set(language, cases);
  return cases;
}

/** The cases a probe of `language` (or, when null, of every arm) replays, arm by arm. */
export function probeCases(language: ProbeLanguage | null): ProbeCase[] {
  return (language ? [language] : [...PROBE_LANGUAGES]).flatMap(armCases);
}
