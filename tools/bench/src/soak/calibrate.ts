import { Agent } from 'undici';
import { postDeployment } from './open-loop';

export interface Calibration {
  readonly callers: number;
  readonly seconds: number;
  readonly executionsPerSecond: number;
  readonly failures: number;
}

/**
 * The maximum rate of this very installation (replicas and all), before any fault: `callers`
 * agents call back to back with distinct intents for `seconds`, round robin over intake replicas.
 */
export async function calibrate(intakeUrls: readonly string[], apiKey: string, callers: number, seconds: number): Promise<Calibration> {
  const dispatcher = new Agent({ connections: callers * 2 });
  const started = Date.now();
  const deadline = started + seconds * 1000;
  let completed = 0;
  let failures = 0;
  try {
    await Promise.all(
      Array.from({ length: callers }, async (_, caller) => {
        for (let i = 0; Date.now() < deadline; i += 1) {
          const url = intakeUrls[(caller + i) % intakeUrls.length] ?? '';
          const answer = await postDeployment(
            url,
            apiKey,
            { project: `calibrate-${caller}-${i}`, version: `v${started}` },
            dispatcher,
          ).catch(() => null);
          if (answer?.ok && answer.state === 'completed') completed += 1;
          else failures += 1;
        }
      }),
    );
  } finally {
    await dispatcher.close();
  }
  return { callers, seconds, executionsPerSecond: completed / ((Date.now() - started) / 1000), failures };
}
