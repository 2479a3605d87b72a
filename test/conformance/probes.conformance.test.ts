/**
 * Conformance: probe replies and the labels the original system's probe gives them
 * (TheClockwyrks/TheTestCabinet, crates/backend/src/probe.rs: `parse_reply`, which takes the
 * first `submit_program` call that carries a program, `label_reply` and `classify`; the arms'
 * needles and documentation-view keys from crates/backend/src/probe/fixtures/rust.json and
 * cpp.json; the trigger's `language` from crates/backend/src/api/model_probes.rs). The
 * programs and the labels below are written out by hand, not built from our fixtures.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeCaseOf } from '../fakes/fake-probe-replies.js';
import { FAKE_SLUGS, startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { jobsHttp } from '../helpers/jobs-http.js';
import { startTestBackend, type TestBackend } from '../helpers/test-backend.js';
import { until } from '../helpers/until.js';

type Call = { name: string; arguments: string };

/** A completion whose message makes `calls`, in order. */
const completion = (calls: Call[]) => ({
  id: 'gen-conformance',
  object: 'chat.completion',
  provider: 'DeepInfra',
  choices: [{
    index: 0,
    finish_reason: 'tool_calls',
    message: { role: 'assistant', content: '', tool_calls: calls.map((fn, i) => ({ id: `call_${i}`, type: 'function', function: fn })) },
  }],
  usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, cost: 0.0001 },
});
const submit = (program: string): Call => ({ name: 'submit_program', arguments: JSON.stringify({ program }) });
const rust = (body: string) => `fn main() -> Result<(), gg::Failure> {\n    ${body}\n    Ok(())\n}\n`;
const cpp = (body: string) => `#include <gg/files.hpp>\n#include <gg/shell.hpp>\n#include <gg/views.hpp>\n\nint main() {\n  ${body}\n  return 0;\n}\n`;

/** Each case's reply, by arm and prompt, and the label the original gives it. */
const REPLIES: Record<string, Record<string, { calls: Call[]; label: string }>> = {
  rust: {
    // A first submit call without a program, then one with: the second is classified.
    'write-plan': { calls: [{ name: 'submit_program', arguments: '{}' }, submit(rust('gg::files::write_file("notes/plan.md", "# Delivery plan")?;'))], label: 'correct-calls' },
    'inventory': { calls: [submit(rust('let entries = gg::files::list_dir(None)?;\n    gg::files::write_file("notes/inventory.md", &format!("{}", entries.len()))?;'))], label: 'correct-calls' },
    // Rust's own spellings: the forbidden call is `shell::run`, the missing view `gg::shell::run`.
    'run-tests': { calls: [submit(rust('gg::shell::run("npm test")?;'))], label: 'called-undocumented' },
    'fix-typo': { calls: [submit(rust('gg::views::open_docs_view("gg::files::edit_file")?;'))], label: 'docview-first' },
  },
  cpp: {
    'write-plan': { calls: [{ name: 'submit_program', arguments: JSON.stringify({ program: 42 }) }, submit(cpp('gg::files::write_file("notes/plan.md", "# Delivery plan");'))], label: 'correct-calls' },
    'inventory': { calls: [submit(cpp('const auto entries = gg::files::list_dir();\n  gg::files::write_file("notes/inventory.md", "entries");'))], label: 'correct-calls' },
    'run-tests': { calls: [submit(cpp('gg::views::open_docs_view("gg::shell::run");'))], label: 'docview-first' },
    'fix-typo': { calls: [submit(cpp('gg::files::edit_file("README.md", "teh", "the");'))], label: 'called-undocumented' },
  },
};

/** What the fake answers now: the replies above, or a test's own. */
let replies = REPLIES;

let router: FakeRouter;
let backend: TestBackend;
let http: ReturnType<typeof jobsHttp>;
let token: string;
const SLUG = FAKE_SLUGS.allRates;

beforeAll(async () => {
  router = await startFakeRouter();
  backend = await startTestBackend({ ROUTER_BASE_URL: router.url, ROUTER_API_KEY: 'sk-test' });
  http = jobsHttp(await backend.app.listen({ host: '127.0.0.1', port: 0 }));
  token = (await backend.auth.register('conformance')).token;
  expect((await http.post('/models', token, { slug: SLUG })).status).toBe(201);
  router.scriptChat((body) => {
    const probeCase = probeCaseOf(body);
    const reply = replies[probeCase.language]?.[probeCase.prompt];
    return { body: completion(reply ? reply.calls : [submit('')]) };
  });
});
afterAll(async () => {
  await backend?.close();
  await router?.close();
});
beforeEach(() => {
  router.requests.length = 0;
  replies = REPLIES;
});

/** Triggers a probe and waits until it is no longer running; answers its detail. */
async function probe(body: Record<string, unknown>) {
  const ack = await http.post(`/models/${encodeURIComponent(SLUG)}/probes`, token, body);
  expect(ack.status, JSON.stringify(ack.body)).toBe(202);
  let detail: { probe: { status: string; language: string | null; callCount: number }; items: Array<{ language: string; prompt: string; label: string }> } | undefined;
  await until(async () => {
    detail = (await http.get(`/model-probes/${ack.body.probe.id}`)).body;
    return detail!.probe.status !== 'running';
  }, 30_000, 'the probe to finish');
  return { ack: ack.body.probe, detail: detail! };
}

describe('probe labels, as the original gives them', () => {
  for (const language of ['rust', 'cpp']) {
    it(`labels the ${language} arm's replies with that arm's own spellings, scanning submit calls until one carries a program`, async () => {
      const { detail } = await probe({ language, samples: 1 });
      const labels = Object.fromEntries(detail.items.map((item) => [item.prompt, item.label]));
      expect(labels).toEqual(Object.fromEntries(Object.entries(REPLIES[language]!).map(([prompt, reply]) => [prompt, reply.label])));
    });
  }
});

describe('the probe trigger reads `language` as the original does', () => {
  it('trims it', async () => {
    const { ack } = await probe({ language: '  rust  ', samples: 1 });
    expect(ack).toMatchObject({ language: 'rust', callCount: 4 });
  });

  it('takes a blank one as absent: every arm', async () => {
    const { ack } = await probe({ language: '   ', samples: 1 });
    expect(ack).toMatchObject({ language: null, callCount: 44 });
  });
});

describe('where we keep our own rule', () => {
  it("reads past an apostrophe in a comment, where the original's stripping hides the rest of the program", async () => {
    // The original blanks from the `'` of "don't" to the end of the program, so it finds no
    // call at all: missing-calls and no-docview. Ours ends an unclosed `'` at its line's end.
    replies = {
      rust: {
        ...REPLIES.rust,
        'write-plan': { calls: [submit(rust('// Don\'t touch anything else.\n    gg::files::write_file("notes/plan.md", "# Delivery plan")?;'))], label: 'correct-calls' },
        'fix-typo': { calls: [submit(rust('// Read edit_file\'s documentation first.\n    gg::views::open_docs_view("gg::files::edit_file")?;'))], label: 'docview-first' },
      },
    };
    const { detail } = await probe({ language: 'rust', samples: 1 });
    const labels = Object.fromEntries(detail.items.map((item) => [item.prompt, item.label]));
    expect(labels).toMatchObject({ 'write-plan': 'correct-calls', 'fix-typo': 'docview-first' });
  });
});
