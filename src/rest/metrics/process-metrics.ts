/**
 * Process-wide numbers for /metrics: memory from process.memoryUsage(), event-loop delay from
 * perf_hooks' monitorEventLoopDelay. The delay histogram covers one-minute windows (the last complete
 * one, or the current one during the first minute), so an old spike does not stay in the quantiles
 * forever and several scrapers do not reset each other.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface EventLoopDelay {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export class ProcessMetrics {
  private readonly histogram: IntervalHistogram;
  private readonly timer: NodeJS.Timeout;
  private last: EventLoopDelay | undefined;

  constructor(windowMs = 60_000) {
    this.histogram = monitorEventLoopDelay({ resolution: 20 });
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.last = this.read();
      this.histogram.reset();
    }, windowMs);
    this.timer.unref();
  }

  eventLoopDelay(): EventLoopDelay {
    return this.last ?? this.read();
  }

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  private read(): EventLoopDelay {
    const h = this.histogram;
    const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
    return {
      p50Ms: ms(h.percentile(50)),
      p99Ms: ms(h.percentile(99)),
      maxMs: ms(h.max),
      meanMs: ms(h.mean),
    };
  }
}
