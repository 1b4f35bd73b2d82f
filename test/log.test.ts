// The server's log lines (written by pino): one JSON object per line on stdout, the level as a
// word, an ISO 8601 time, then the operation's fields.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('JSON log lines', () => {
  it('keep their fields: level, time, request id, operation, type, duration, SQL statements, errors', () => {
    const script = `import { jsonLogger } from './src/server/plugins.ts';
      jsonLogger({ level: 'info', requestId: 'r1', operation: 'Dash', type: 'query', durationMs: 1.5, sqlStatements: 6 });
      jsonLogger({ level: 'warn', requestId: 'r2', operation: 'X', type: 'mutation', durationMs: 0.2, sqlStatements: 0, errors: ['boom'] });`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), requestId: 'r1', operation: 'Dash', type: 'query', durationMs: 1.5, sqlStatements: 6 },
      { level: 'warn', time: expect.any(String), requestId: 'r2', operation: 'X', type: 'mutation', durationMs: 0.2, sqlStatements: 0, errors: ['boom'] },
    ]);
    expect(Object.keys(lines[0]).slice(0, 2)).toEqual(['level', 'time']);
  });
});
