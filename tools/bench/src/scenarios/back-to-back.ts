import type { McpCaller } from '../callers/callers';
import { freshIntent } from './shuffle';

export interface BackToBack {
  readonly calls: number;
  readonly failures: number;
  readonly firstFailure: string | null;
}

/**
 * Every agent calls back to back, each call a distinct intent, until `deadline`; `onAnswer` gets
 * each answered call's execution id (null through the proxy, which has none).
 */
export async function callBackToBack(
  agents: readonly McpCaller[],
  deadline: number,
  intentPrefix: string,
  onAnswer: (executionId: string | null) => void = () => undefined,
): Promise<BackToBack> {
  let calls = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  await Promise.all(
    agents.map(async (agent, index) => {
      while (Date.now() < deadline) {
        const { project, version } = freshIntent(`${intentPrefix}-${index}`);
        try {
          const t0 = Date.now();
          const id = await agent.call(project, version);
          if (process.env['BENCH_TRACE_CALLS']) process.stderr.write(`call ${Date.now() - t0} ms ${id}\n`);
          calls += 1;
          onAnswer(id);
        } catch (error) {
          failures += 1;
          firstFailure ??= String(error);
        }
      }
    }),
  );
  return { calls, failures, firstFailure };
}
