import { ConnectError, RetriableError } from '../../connect/errors.js';
import { SinkConnector } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask } from '../../connect/sink-task.js';
import { HTTP_SINK_CONFIG, httpSinkSettings, validateHttpSink, type HttpSinkSettings } from './config.js';
import { HttpRequestRefusedError } from './errors.js';
import { planRequests, type PlannedRequest } from './requests.js';
import { sendRequest, type RequestOutcome } from './send.js';

const VERSION = '0.1.0';

/** Sends records to an HTTP endpoint, a batch per request; see docs/sinks.md. */
export class HttpSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof HTTP_SINK_CONFIG {
    return HTTP_SINK_CONFIG;
  }

  /** Declared keys, then headers, URL, auth and key combinations: every problem in one list. */
  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    return validateHttpSink(props);
  }

  start(props: Readonly<Record<string, string>>): void {
    httpSinkSettings(props);
    this.#props = props;
  }

  /** Tasks are interchangeable: every one sends whatever records it is given. */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

/** A request's final outcome, kept across a retriable failure of the put it belonged to. */
type Settled = Exclude<RequestOutcome, { kind: 'retriable' }>;

/**
 * One put = the batch cut into requests (planRequests), sent up to max.in.flight.requests at a time.
 * put() resolves only once every request succeeded or was refused and reported, so records are
 * ACCEPTed (or committed) only after the endpoint took them.
 *
 * When the runtime aborts the put (`context.abortSignal()`), requests in flight are cancelled and the
 * put throws at once, so the thread it shares with other puts is never terminated for it.
 *
 * When some requests fail retriably, the put throws RetriableError and the runtime puts the same
 * batch again. The requests that had already succeeded (or been refused) are remembered, keyed by
 * URL and record coordinates, and not sent again when that retry lands on this instance. A retry on
 * another pool thread sends them again: at-least-once, which the idempotency key lets a receiver absorb.
 */
export class HttpSinkTask extends SinkTask {
  #cfg: HttpSinkSettings | undefined;
  #settled = new Map<string, Settled>();

  version(): string {
    return VERSION;
  }

  start(props: Readonly<Record<string, string>>): void {
    this.#cfg = httpSinkSettings(props);
    this.#settled.clear();
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const cfg = this.#cfg;
    if (cfg === undefined) throw new ConnectError('HttpSinkTask.put() before start()');
    if (records.length === 0) return;
    const planned = planRequests(records, cfg.urlTemplate, cfg.batchMaxSize);
    const outcomes = await this.#sendAll(cfg, planned);

    const retriable = outcomes.filter((o) => o?.kind === 'retriable');
    const refused = outcomes.filter((o) => o?.kind === 'refused');
    if (cfg.onError === 'fail' && refused.length > 0) {
      this.#settled.clear();
      const first = refused[0]!;
      throw new HttpRequestRefusedError(
        first.status,
        `${first.message} (behavior.on.error=fail; set it to errant to reject only the records of refused requests)`,
      );
    }
    if (retriable.length > 0) {
      this.#remember(planned, outcomes);
      const hints = retriable.flatMap((o) => (o.retryAfterMs === undefined ? [] : [o.retryAfterMs]));
      if (hints.length > 0) this.context.timeout(Math.max(...hints));
      const written = outcomes.filter((o) => o?.kind === 'ok').length;
      const unsent = outcomes.filter((o) => o === undefined).length;
      throw new RetriableError(
        `${retriable[0]!.message} (${retriable.length} of ${planned.length} requests failed retriably, ` +
          `${written} succeeded, ${unsent} not sent yet; a retry on this task instance skips the succeeded ones)`,
      );
    }
    this.#settled.clear();
    if (refused.length === 0) return;
    const report = this.context.errantRecordReporter();
    planned.forEach((request, i) => {
      const outcome = outcomes[i];
      if (outcome?.kind !== 'refused') return;
      const error = new HttpRequestRefusedError(outcome.status, outcome.message);
      for (const record of request.records) report(record, error);
    });
  }

  stop(): void {
    this.#settled.clear();
  }

  /**
   * Sends the planned requests with at most max.in.flight.requests open. After a retriable failure or
   * a refusal under behavior.on.error=fail no new request starts (the rest would wait for the retry
   * anyway); requests already in flight finish. Unsent requests have no outcome.
   */
  async #sendAll(
    cfg: HttpSinkSettings,
    planned: readonly PlannedRequest[],
  ): Promise<(RequestOutcome | undefined)[]> {
    // dense, so unsent requests count as undefined in filters
    const outcomes = Array.from({ length: planned.length }, (): RequestOutcome | undefined => undefined);
    let next = 0;
    let halted = false;
    const lane = async (): Promise<void> => {
      while (!halted && next < planned.length) {
        const i = next++;
        const request = planned[i]!;
        const known = this.#settled.get(settledKey(request));
        const outcome = known ?? (await sendRequest(cfg, request, this.context.abortSignal()));
        outcomes[i] = outcome;
        if (outcome.kind === 'retriable' || (outcome.kind === 'refused' && cfg.onError === 'fail'))
          halted = true;
      }
    };
    const lanes = await Promise.allSettled(
      Array.from({ length: Math.min(cfg.maxInFlight, planned.length) }, () =>
        lane().catch((error: unknown) => {
          halted = true;
          throw error;
        }),
      ),
    );
    const failed = lanes.find((l) => l.status === 'rejected');
    if (failed !== undefined) {
      const cause = failed.reason as unknown;
      const reason = cause instanceof Error ? cause.message : String(cause);
      this.#settled.clear();
      throw new ConnectError(cfg.redactor.redact(`HttpSink could not send a request: ${reason}`), { cause });
    }
    return outcomes;
  }

  /** Keeps the final outcomes of this put's requests (only this put's) for the runtime's retry. */
  #remember(planned: readonly PlannedRequest[], outcomes: readonly (RequestOutcome | undefined)[]): void {
    const settled = new Map<string, Settled>();
    planned.forEach((request, i) => {
      const outcome = outcomes[i];
      if (outcome !== undefined && outcome.kind !== 'retriable') settled.set(settledKey(request), outcome);
    });
    this.#settled = settled;
  }
}

function settledKey(request: PlannedRequest): string {
  return `${request.url}\n${request.key}`;
}
