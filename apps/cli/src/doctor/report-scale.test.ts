/**
 * A report over many tools reads each call a bounded number of times: the report, the coverage and
 * the client views each used to filter every call once per tool, so a server listing 10,000 tools
 * kept doctor computing for most of a minute after its calls had ended (100,000: an hour). Counted
 * as reads of the run's calls, not timed.
 */
import { describe, expect, it } from 'vitest';
import type { CallRecord, DoctorRun, ToolInfo } from './records.js';
import { buildReport } from './report.js';

describe('a report over many tools', () => {
  it('reads each call a bounded number of times, however many tools there are', () => {
    const n = 2_000;
    const tools: ToolInfo[] = [];
    const calls: CallRecord[] = [];
    for (let i = 0; i < n; i++) {
      const name = `tool_${i}`;
      tools.push({ name, inputSchema: { type: 'object' }, destructive: false, listedBy: ['p'], filtered: false });
      calls.push({
        tool: name,
        case: '{}',
        profile: 'p',
        strategy: 'accept-defaults',
        arguments: {},
        asks: [],
        outcome: { kind: 'result', isError: false, status: 'done', text: 'done' },
        ms: 1,
      });
    }
    let reads = 0;
    const counted = new Proxy(calls, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const run: DoctorRun = {
      target: 't',
      throwAway: false,
      allowDestructive: false,
      tools,
      profiles: [],
      calls: counted,
    };
    const report = buildReport(run, [], [], null);
    expect(report.tools).toHaveLength(n);
    expect(report.tools[n - 1]?.calls).toHaveLength(1);
    // A filter per tool reads n² = 4,000,000 of them; an index, a few per call.
    expect(reads).toBeLessThan(50 * n);
  });
});
