import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `Tests: N passed, N failed, N skipped`, for CI logs, then
 * what was skipped, grouped by suite, so a run on a bare clone shows what it did not check
 * (a suite's title says why it skips).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    const skipped = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else {
          const suite = `${module.moduleId.replace(/^.*?\/test\//, 'test/')}${test.parent.type === 'suite' ? ` > ${test.parent.fullName}` : ''}`;
          skipped.set(suite, (skipped.get(suite) ?? 0) + 1);
        }
      }
    }
    const skippedCount = [...skipped.values()].reduce((sum, count) => sum + count, 0);
    console.log(`Tests: ${passed} passed, ${failed} failed, ${skippedCount} skipped`);
    for (const [suite, count] of skipped) console.log(`  skipped ${count}: ${suite}`);
  }
}
