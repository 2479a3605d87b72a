import { describe, expect, it } from 'vitest';
import { armCases, PROBE_LANGUAGES, probeCases } from '../../src/probes/probe-conversations.js';
import { callNeedle } from '../../src/probes/program-calls.js';

/** What every arm's four cases must check, by the canonical function each spelling stands for. */
const EXPECTED = {
  'write-plan': { scenario: 'baseline', needed: ['writeFile'], forbidden: [], viewKey: null },
  inventory: { scenario: 'baseline', needed: ['listDir', 'writeFile'], forbidden: [], viewKey: null },
  'run-tests': { scenario: 'missing-docview', needed: [], forbidden: ['shell'], viewKey: 'gg.shell.shell' },
  'fix-typo': { scenario: 'missing-docview', needed: [], forbidden: ['editFile'], viewKey: 'gg.files.editFile' },
} as const;

const VIEW_KEY = { writeFile: 'gg.files.writeFile', listDir: 'gg.files.listDir', shell: 'gg.shell.shell', editFile: 'gg.files.editFile' } as const;

/**
 * The arms whose needles and view keys are spelled as the original's probe fixtures spell
 * them (crates/backend/src/probe/fixtures/rust.json, cpp.json): `gg::files::edit_file`, and
 * the shell's function is `run`.
 */
const NATIVE_KEYS: Partial<Record<string, { viewKey: Record<string, string>; shell: string }>> = Object.fromEntries(['rust', 'cpp'].map((arm) => [arm, {
  viewKey: { writeFile: 'gg::files::write_file', listDir: 'gg::files::list_dir', shell: 'gg::shell::run', editFile: 'gg::files::edit_file' },
  shell: 'run',
}]));

/** A case's expectations in `language`'s spelling. */
function expectedOf(language: string, prompt: keyof typeof EXPECTED) {
  const expected = EXPECTED[prompt];
  const native = NATIVE_KEYS[language];
  if (!native) return { ...expected, keys: VIEW_KEY as Record<string, string> };
  return {
    ...expected,
    forbidden: expected.forbidden.map((fn) => (fn === 'shell' ? native.shell : fn)),
    viewKey: expected.viewKey === null ? null : native.viewKey[expected.forbidden[0]!]!,
    keys: native.viewKey,
  };
}

/** The canonical function a spelling names, whatever the arm's case and separator: `files::write_file` → `writefile`. */
const canonical = (spelling: string) => callNeedle(spelling).split(/::|\./).at(-1)!.replace(/_/g, '').toLowerCase();

const views = (messages: Array<{ role: string; content?: unknown }>) =>
  messages.filter((m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Documentation: '))
    .map((m) => (m.content as string).split('\n')[0]!.slice('Documentation: '.length));

describe.each(PROBE_LANGUAGES)('the %s arm', (language) => {
  const cases = armCases(language);

  it('has the four cases, two per scenario, in a system-task-earlier-turn-views-spec conversation', () => {
    expect(cases.map((c) => c.prompt)).toEqual(Object.keys(EXPECTED));
    for (const item of cases) {
      expect(item.messages[0]).toMatchObject({ role: 'system' });
      expect(item.messages[0]!.content).toContain(item.openCall);
      expect(item.messages[1]).toMatchObject({ role: 'user' });
      const earlier = item.messages[2] as { role: string; tool_calls: Array<{ function: { name: string; arguments: string } }> };
      expect(earlier.role).toBe('assistant');
      expect(earlier.tool_calls[0]!.function.name).toBe('submit_program');
      expect(JSON.parse(earlier.tool_calls[0]!.function.arguments).program).toContain(callNeedle(item.openCall));
      expect(item.messages[3]).toMatchObject({ role: 'tool' });
      expect(item.messages.at(-1)!.content).toMatch(/^Spec file: spec\//);
    }
  });

  it('spells each case’s needed and forbidden calls for the arm, and opens views with the arm’s call', () => {
    for (const item of cases) {
      const expected = expectedOf(language, item.prompt as keyof typeof EXPECTED);
      expect(item).toMatchObject({ scenario: expected.scenario, viewKey: expected.viewKey });
      expect(item.needed.map(canonical)).toEqual(expected.needed.map((fn) => fn.toLowerCase()));
      expect(item.forbidden.map(canonical)).toEqual(expected.forbidden.map((fn) => fn.toLowerCase()));
      expect(canonical(item.openCall)).toBe('opendocsview');
      // Every spelling is the one the arm's documentation views show.
      const docs = item.messages.map((m) => String(m.content ?? '')).join('\n');
      for (const spelling of item.needed) expect(docs).toContain(`${spelling}(`);
    }
  });

  it('opens every needed view in baseline, and lacks the target’s view in missing-docview', () => {
    for (const item of cases) {
      const open = views(item.messages);
      const expected = expectedOf(language, item.prompt as keyof typeof EXPECTED);
      if (item.scenario === 'baseline') {
        for (const fn of expected.needed) expect(open).toContain(expected.keys[fn]);
      } else {
        expect(open).not.toContain(item.viewKey);
        expect(item.messages.map((m) => String(m.content ?? '')).join('\n')).not.toContain(`Documentation: ${item.viewKey}`);
      }
    }
  });
});

describe('probeCases', () => {
  it('replays one arm, or every arm in order, at least three prompts across both scenarios', () => {
    expect(probeCases('rust').every((c) => c.language === 'rust')).toBe(true);
    const all = probeCases(null);
    expect(all).toHaveLength(PROBE_LANGUAGES.length * 4);
    expect([...new Set(all.map((c) => c.language))]).toEqual([...PROBE_LANGUAGES]);
    expect(new Set(all.map((c) => c.prompt)).size).toBeGreaterThanOrEqual(3);
  });
});
