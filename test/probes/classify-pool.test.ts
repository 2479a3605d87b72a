import { afterAll, describe, expect, it } from 'vitest';
import { createClassifyPool } from '../../src/probes/classify-pool.js';
import { classifyReply, type ProbeReply } from '../../src/probes/classify-reply.js';
import { armCases } from '../../src/probes/probe-conversations.js';

const pool = createClassifyPool();
afterAll(() => pool.close());

describe('the classification pool', () => {
  it('answers exactly what the function answers on the main thread', async () => {
    const [writePlan, , runTests] = armCases('typescript');
    const reply = (program: string): ProbeReply => ({
      ok: true,
      body: { choices: [{ message: { tool_calls: [{ function: { name: 'submit_program', arguments: JSON.stringify({ program }) } }] } }] },
    });
    const items = [
      { reply: reply('files.writeFile("PLAN.md", "1. router")'), check: writePlan! },
      { reply: reply('views.openDocsView("gg.shell.shell")'), check: runTests! },
      { reply: reply('```\nshell.shell("npm test")\n```'), check: runTests! },
      { reply: { ok: false, error: 'HTTP 502' } as ProbeReply, check: runTests! },
    ];
    const pooled = await pool.classifyMany(items);
    expect(pooled).toEqual(items.map(({ reply: r, check }) => classifyReply(r, check)));
    expect(pooled.map((c) => c.label)).toEqual(['correct-calls', 'docview-first', 'fenced', null]);
    expect(await pool.classify(items[0]!.reply, items[0]!.check)).toEqual(pooled[0]);
  });
});
