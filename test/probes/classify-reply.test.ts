import { describe, expect, it } from 'vitest';
import { classifyReply, programLabel, type ProbeReply } from '../../src/probes/classify-reply.js';
import { PROBE_LABELS, type CaseCheck, type ProbeLabel } from '../../src/probes/probe-labels.js';
import { blankCallArguments, callNeedle, stripStringLiterals } from '../../src/probes/program-calls.js';

const baseline: CaseCheck = { scenario: 'baseline', needed: ['files.listDir', 'files.writeFile'], forbidden: [], openCall: 'views.openDocsView', viewKey: null };
const missing: CaseCheck = { scenario: 'missing-docview', needed: [], forbidden: ['shell.shell'], openCall: 'views.openDocsView', viewKey: 'gg.shell.shell' };
const rust: CaseCheck = { scenario: 'missing-docview', needed: [], forbidden: ['files::edit_file'], openCall: 'views::open_docs_view', viewKey: 'gg.files.editFile' };

function submitted(program: unknown, extra: Record<string, unknown> = {}): ProbeReply {
  return {
    ok: true,
    body: {
      provider: 'DeepInfra',
      choices: [{
        finish_reason: 'tool_calls',
        native_finish_reason: 'tool_use',
        message: {
          content: '',
          reasoning: 'thinking it over',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'submit_program', arguments: JSON.stringify({ program }) } }],
        },
      }],
      usage: { prompt_tokens: 900, completion_tokens: 40, cost: 0.0012 },
      ...extra,
    },
  };
}

describe('programLabel: shape faults, first match wins', () => {
  const table: Array<[string, string, CaseCheck, ProbeLabel]> = [
    ['whitespace only', ' \n\t ', baseline, 'empty'],
    ['a raw tool token, even beside xml, a think tag and a fence', '<|tool_call|><tool_call><think>```', baseline, 'tool-token'],
    ['each tool token', 'files.listDir("."); <|sep|>', baseline, 'tool-token'],
    ['xml pseudo tools over a think tag and a fence', '<invoke name="x"></think>```', baseline, 'xml-pseudo-tools'],
    ['a closing tool tag', 'files.listDir(".")</tool>', baseline, 'xml-pseudo-tools'],
    ['<function> bare', '<function>files.listDir()</function>', baseline, 'xml-pseudo-tools'],
    ['a think tag over a fence', '<think>plan</think>\n```ts\nfiles.listDir(".")\n```', baseline, 'cot-leak'],
    ['the other think marker', '◁think▷ hmm', baseline, 'cot-leak'],
    ['a fence anywhere, even with every call present', 'files.listDir(".");\n```\nfiles.writeFile("a", "b");', baseline, 'fenced'],
  ];
  it.each(table)('%s', (_name, program, check, label) => expect(programLabel(program, check)).toBe(label));
});

describe('programLabel: scenario checks', () => {
  const table: Array<[string, string, CaseCheck, ProbeLabel]> = [
    ['baseline with every needed call', 'const names = files.listDir("src");\nfiles.writeFile("PLAN.md", names.join("\\n"));', baseline, 'correct-calls'],
    ['baseline missing one call', 'files.writeFile("PLAN.md", "x");', baseline, 'missing-calls'],
    ['a call named only inside a string literal does not count', 'print("files.listDir()"); files.writeFile("a", "b");', baseline, 'missing-calls'],
    ['nor inside a single-quoted or backtick literal', "log('files.listDir'); log(`files.listDir`); files.writeFile('a', 'b');", baseline, 'missing-calls'],
    ['escaped quotes keep the literal open', 'log("say \\"files.listDir()\\" now"); files.writeFile("a", "b");', baseline, 'missing-calls'],
    ['a longer identifier is not the call', 'files.listDirSync("."); files.writeFile("a", "b");', baseline, 'missing-calls'],
    ['nor is a longer receiver', 'myfiles.listDir("."); files.writeFile("a", "b");', baseline, 'missing-calls'],
    ['a qualified receiver still counts', 'gg.files.listDir("."); gg.files.writeFile("a", "b");', baseline, 'correct-calls'],
    ['missing-docview: opens the view and stops', 'views.openDocsView("gg.shell.shell");', missing, 'docview-first'],
    ['missing-docview: opens and calls', 'views.openDocsView("gg.shell.shell");\nshell.shell("npm test");', missing, 'called-undocumented'],
    ['missing-docview: calls without opening', 'shell.shell("npm test");', missing, 'called-undocumented'],
    ['missing-docview: neither', 'files.listDir(".");', missing, 'no-docview'],
    ['missing-docview: opens another view', 'views.openDocsView("gg.files.readFile");', missing, 'no-docview'],
    ['the open call’s own argument is not a call', 'views.openDocsView(gg.shell.shell);', missing, 'docview-first'],
    ['the view key alone, in a string, is not an open', 'log("gg.shell.shell");', missing, 'no-docview'],
    ['the forbidden call named in a string is not a call', 'views.openDocsView("gg.shell.shell"); log("next: shell.shell(...)");', missing, 'docview-first'],
    ['rust spellings', 'views::open_docs_view("gg.files.editFile");', rust, 'docview-first'],
    ['rust spellings, calling', 'views::open_docs_view("gg.files.editFile"); files::edit_file("a", "b", "c");', rust, 'called-undocumented'],
  ];
  it.each(table)('%s', (_name, program, check, label) => expect(programLabel(program, check)).toBe(label));
});

describe('classifyReply', () => {
  it('reads the reply’s fields and passes only correct-calls and docview-first', () => {
    expect(classifyReply(submitted('views.openDocsView("gg.shell.shell");'), missing)).toEqual({
      label: 'docview-first', pass: true, error: null, provider: 'DeepInfra', finishReason: 'tool_calls', nativeFinishReason: 'tool_use',
      programText: 'views.openDocsView("gg.shell.shell");', responseText: '', reasoningText: 'thinking it over',
      promptTokens: 900, completionTokens: 40, cost: 0.0012,
    });
    expect(classifyReply(submitted('files.listDir("x")'), baseline)).toMatchObject({ label: 'missing-calls', pass: false });
  });

  it('voids errors: non-2xx or transport, a body with `error`, no choices[0]', () => {
    expect(classifyReply({ ok: false, error: 'HTTP 500' }, baseline)).toMatchObject({ label: null, pass: false, error: 'HTTP 500' });
    expect(classifyReply({ ok: true, body: { error: { message: 'upstream died' } } }, baseline)).toMatchObject({ label: null, error: expect.stringContaining('upstream died') });
    expect(classifyReply({ ok: true, body: { choices: [] } }, baseline)).toMatchObject({ label: null, error: 'The reply has no choices[0].' });
    expect(classifyReply({ ok: true, body: 'nope' }, baseline)).toMatchObject({ label: null, error: expect.any(String) });
  });

  it('labels replies that submit nothing: no tool call, another tool, no parsable program', () => {
    const message = (m: Record<string, unknown>): ProbeReply => ({ ok: true, body: { choices: [{ finish_reason: 'stop', message: m }] } });
    expect(classifyReply(message({ content: 'files.listDir()' }), baseline).label).toBe('no-submission');
    expect(classifyReply(message({ tool_calls: [{ function: { name: 'run_shell', arguments: '{}' } }] }), baseline).label).toBe('stray-tool-call');
    expect(classifyReply(message({ tool_calls: [{ function: { name: 'submit_program', arguments: '{"program": 42}' } }] }), baseline).label).toBe('no-program');
    expect(classifyReply(message({ tool_calls: [{ function: { name: 'submit_program', arguments: '{not json' } }] }), baseline).label).toBe('no-program');
    // A provider that sends the arguments as an object still submitted a program.
    expect(classifyReply(message({ tool_calls: [{ function: { name: 'submit_program', arguments: { program: 'files.listDir(); files.writeFile()' } } }] }), baseline).label).toBe('correct-calls');
  });

  it('covers every label', () => {
    const seen = new Set<ProbeLabel>();
    const programs: Array<[string, CaseCheck]> = [
      ['', baseline], ['<|open|>', baseline], ['<tool_result>', baseline], ['</think>', baseline], ['```', baseline],
      ['files.listDir(); files.writeFile();', baseline], ['files.listDir();', baseline],
      ['views.openDocsView("gg.shell.shell")', missing], ['shell.shell()', missing], ['nothing()', missing],
    ];
    for (const [program, check] of programs) seen.add(programLabel(program, check));
    seen.add('no-submission').add('stray-tool-call').add('no-program'); // asserted in the test above
    expect([...seen].sort()).toEqual([...PROBE_LABELS].sort());
  });
});

describe('program-calls helpers', () => {
  it('strips literal contents and keeps offsets', () => {
    const source = 'a("x.y", \'z\', `w\nv`) // don\'t\nb()';
    const stripped = stripStringLiterals(source);
    expect(stripped).toHaveLength(source.length);
    expect(stripped).toBe('a("   ", \' \', `   `) // don\' \nb()');
  });

  it('takes the last two segments as the needle and blanks an open call’s arguments', () => {
    expect(callNeedle('gg::files::write_file')).toBe('files::write_file');
    expect(callNeedle('Files.WriteFile')).toBe('Files.WriteFile');
    expect(blankCallArguments('views.openDocsView(shell.shell(x)); shell.y', 'views.openDocsView')).toBe('views.openDocsView(           (  ); shell.y');
  });
});
