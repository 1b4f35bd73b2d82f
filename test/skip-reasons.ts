// A vitest reporter: after a run, every skipped test with the reason it was skipped (the note given to
// ctx.skip(note), else its name, which then says why), counted by file and reason.
import type { Reporter, TestModule } from 'vitest/node';

export default class SkipReasons implements Reporter {
  private filtered = false;

  onInit(vitest: { config: { testNamePattern?: unknown } }) {
    // A run narrowed with -t skips everything else: nothing to explain.
    this.filtered = Boolean(vitest.config.testNamePattern);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    if (this.filtered) return;
    const counts = new Map<string, number>();
    for (const module of modules) {
      // A file that failed to run reports its tests as skipped: the failure says why.
      if (module.state() === 'failed') continue;
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const why = (result.state === 'skipped' && result.note) || test.fullName;
        const key = `${module.relativeModuleId}: ${why}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    if (counts.size === 0) return;
    const lines = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `  ${n} × ${key}`);
    process.stdout.write(`\n Skipped tests, and why:\n${lines.join('\n')}\n`);
  }
}
