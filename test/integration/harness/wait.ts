/** Small helpers the worker-level integration tests share: polling for a condition, reading outputs. */
import { readFileSync } from 'node:fs';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The non-empty lines of a file a sink writes; [] while it does not exist yet. */
export function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Polls `probe` every 200 ms until `ok` accepts its value; throws naming `what` and the last value. */
export async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await probe();
    if (ok(last)) return last;
    await sleep(200);
  } while (Date.now() < deadline);
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** Sums a series over its label sets (those containing `labels`, when given) in Prometheus text. */
export function metric(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\S+)$`, 'gm')))
    sum += Number(m[1]);
  return sum;
}
