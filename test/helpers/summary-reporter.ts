import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `Tests: N passed, N failed, N skipped`, for CI logs, then
 * each failed test with the first line of its error, then what was skipped, grouped by suite,
 * so a run on a bare clone shows what it did not check (a suite's title says why it skips).
 * With TEST_FAILURES_FILE set (scripts/bootstrap.mjs sets it per engine) the failed lines are
 * also appended there, so the bootstrap can repeat both halves' failures at the very end of
 * the log, where a truncated CI log still shows them.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    const failures: string[] = [];
    const skipped = new Map<string, number>();
    for (const module of testModules) {
      const file = module.moduleId.replace(/^.*?\/test\//, 'test/');
      // A file that fails to load has no tests, only its own errors.
      for (const error of module.errors()) failures.push(`${file}: ${firstLine(error.message)}`);
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') failures.push(`${file} > ${test.fullName}: ${firstLine(result.errors?.[0]?.message)}`);
        else {
          const suite = `${file}${test.parent.type === 'suite' ? ` > ${test.parent.fullName}` : ''}`;
          skipped.set(suite, (skipped.get(suite) ?? 0) + 1);
        }
      }
    }
    const skippedCount = [...skipped.values()].reduce((sum, count) => sum + count, 0);
    console.log(`Tests: ${passed} passed, ${failures.length} failed, ${skippedCount} skipped`);
    for (const failure of failures) console.log(`  failed: ${failure}`);
    for (const [suite, count] of skipped) console.log(`  skipped ${count}: ${suite}`);
    const file = process.env.TEST_FAILURES_FILE;
    if (file && failures.length > 0) appendFileSync(file, failures.map((failure) => `${failure}\n`).join(''));
  }
}

function firstLine(message: string | undefined): string {
  const [line = ''] = (message ?? 'no error message').split('\n', 1);
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
