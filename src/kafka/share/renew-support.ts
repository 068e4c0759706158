/**
 * Where RENEW acknowledgements work (Kafka ≥ 4.2: ShareAcknowledge v2). Each leader a share consumer
 * fetches from is asked once, when it first becomes a leader of an assigned partition; until it has
 * answered, a renewal there is refused as unsupported.
 */
import type { ShareTransport } from './transport.js';

export class RenewSupport {
  /** Per leader: RENEW acknowledgements work there. */
  private readonly byNode = new Map<number, boolean>();

  constructor(
    private readonly transport: ShareTransport,
    private readonly groupId: string,
  ) {}

  /** Asks `nodeId`, a new leader, in the background; a failure to ask counts as no. */
  probe(nodeId: number): void {
    void this.transport.supportsRenew(nodeId).then(
      (ok) => this.byNode.set(nodeId, ok),
      () => this.byNode.set(nodeId, false),
    );
  }

  /** True once `nodeId` said RENEW works there. */
  at(nodeId: number): boolean {
    return this.byNode.get(nodeId) === true;
  }

  /**
   * True when RENEW works with every leader in `nodes`; with none (before the first assignment), the
   * group coordinator stands in for the future leaders.
   */
  async everywhere(nodes: readonly number[]): Promise<boolean> {
    const asked = nodes.length > 0 ? nodes : [await this.transport.groupCoordinator(this.groupId)];
    const answers = await Promise.all(asked.map((n) => this.transport.supportsRenew(n)));
    return answers.every(Boolean);
  }
}
