/** How often a machine went from one state to another (WorkerSummary.transitions, /metrics). */
export interface TransitionCount {
  machine: string;
  from: string;
  to: string;
  count: number;
}
