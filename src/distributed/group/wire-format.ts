/**
 * What sharesink workers put in the opaque bytes of the classic group protocol (protocol type
 * {@link PROTOCOL_TYPE}, protocol name {@link PROTOCOL_NAME}): UTF-8 JSON objects with a `version` field.
 *
 * JSON rather than a binary layout: the bytes are small (a few hundred per member), written once per
 * rebalance, and readable by eye (describeGroups member metadata, a packet dump). Offsets are decimal
 * strings (a bigint does not survive JSON as a number). A reader accepts any `version` ≥ 1 and ignores fields
 * it does not know, so a newer worker can add fields without breaking an older one in the same cluster;
 * a breaking change gets a new protocol name (`sharesink-cooperative-v2`), which the coordinator negotiates.
 *
 * Member metadata (JoinGroup), version 1:
 * `{"version":1,"workerId":"host:8083","restUrl":"http://host:8083","configOffset":"42",
 *   "connectors":["orders"],"tasks":[["orders",0],["orders",3]]}` — connectors and tasks are what the member
 * runs now (KIP-415: the leader needs them to move only what must move).
 *
 * Member assignment (SyncGroup), version 1:
 * `{"version":1,"leaderId":"…","leaderUrl":"…","configOffset":"42","connectors":[…],"tasks":[…],
 *   "revokedConnectors":[…],"revokedTasks":[…],"delayMs":0,"members":[{"memberId","workerId","restUrl",
 *   "configOffset"}]}` — `members` lets every worker (not only the leader) show the cluster.
 */
import { KafkaProtocolError } from '../../kafka/errors/kafka-errors.js';
import type { TaskId, WorkerAssignment, WorkerMetadata } from '../group-types.js';

export const PROTOCOL_TYPE = 'sharesink';
export const PROTOCOL_NAME = 'sharesink-cooperative-v1';
const VERSION = 1;

export interface MemberMetadata extends WorkerMetadata {
  readonly connectors: readonly string[];
  readonly tasks: readonly TaskId[];
}

export interface ClusterMember extends WorkerMetadata {
  readonly memberId: string;
}

export interface MemberAssignment extends WorkerAssignment {
  readonly members: readonly ClusterMember[];
}

const tasksToJson = (tasks: readonly TaskId[]): Array<[string, number]> =>
  tasks.map((t) => [t.connector, t.task]);

export function encodeMemberMetadata(m: MemberMetadata): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: VERSION,
      workerId: m.workerId,
      restUrl: m.restUrl,
      configOffset: m.configOffset.toString(),
      connectors: m.connectors,
      tasks: tasksToJson(m.tasks),
    }),
  );
}

export function encodeMemberAssignment(a: MemberAssignment): Buffer {
  return Buffer.from(
    JSON.stringify({
      version: VERSION,
      leaderId: a.leaderId,
      leaderUrl: a.leaderUrl,
      configOffset: a.configOffset.toString(),
      connectors: a.connectors,
      tasks: tasksToJson(a.tasks),
      revokedConnectors: a.revokedConnectors,
      revokedTasks: tasksToJson(a.revokedTasks),
      delayMs: a.delayMs,
      members: a.members.map((m) => ({
        memberId: m.memberId,
        workerId: m.workerId,
        restUrl: m.restUrl,
        configOffset: m.configOffset.toString(),
      })),
    }),
  );
}

/** Reads one JSON document's fields with checks; every failure names what was being read. */
class Fields {
  constructor(
    private readonly o: Record<string, unknown>,
    private readonly what: string,
  ) {}

  static parse(bytes: Uint8Array, what: string): Fields {
    let o: unknown;
    try {
      o = JSON.parse(Buffer.from(bytes).toString('utf8'));
    } catch (cause) {
      throw new KafkaProtocolError(`${what} is not JSON (${bytes.length} bytes)`, { cause });
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o))
      throw new KafkaProtocolError(`${what} is not an object`);
    const f = new Fields(o as Record<string, unknown>, what);
    const version = f.num('version');
    if (!Number.isInteger(version) || version < 1) throw f.bad('version', 'an integer ≥ 1');
    return f;
  }

  bad(field: string, expected: string): KafkaProtocolError {
    return new KafkaProtocolError(`${this.what}: field "${field}" is not ${expected}`);
  }

  str(field: string): string {
    const v = this.o[field];
    if (typeof v !== 'string') throw this.bad(field, 'a string');
    return v;
  }

  num(field: string): number {
    const v = this.o[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.bad(field, 'a number');
    return v;
  }

  offset(field: string): bigint {
    const v = this.str(field);
    if (!/^-?\d+$/.test(v)) throw this.bad(field, 'a decimal offset');
    return BigInt(v);
  }

  strings(field: string): string[] {
    const v = this.o[field];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
      throw this.bad(field, 'an array of strings');
    return v as string[];
  }

  tasks(field: string): TaskId[] {
    const v = this.o[field];
    const ok = (x: unknown): x is [string, number] =>
      Array.isArray(x) &&
      x.length === 2 &&
      typeof x[0] === 'string' &&
      Number.isInteger(x[1]) &&
      (x[1] as number) >= 0;
    if (!Array.isArray(v) || !v.every(ok)) throw this.bad(field, 'an array of [connector, task] pairs');
    return (v as Array<[string, number]>).map(([connector, task]) => ({ connector, task }));
  }

  objects(field: string): Fields[] {
    const v = this.o[field];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))) {
      throw this.bad(field, 'an array of objects');
    }
    return (v as Array<Record<string, unknown>>).map((x, i) => new Fields(x, `${this.what} ${field}[${i}]`));
  }
}

/** @throws KafkaProtocolError (SHARESINK_PROTOCOL_DECODE) naming the member and the bad field. */
export function decodeMemberMetadata(bytes: Uint8Array, memberId: string): MemberMetadata {
  const f = Fields.parse(bytes, `the metadata of member ${memberId}`);
  return {
    workerId: f.str('workerId'),
    restUrl: f.str('restUrl'),
    configOffset: f.offset('configOffset'),
    connectors: f.strings('connectors'),
    tasks: f.tasks('tasks'),
  };
}

/** @throws KafkaProtocolError (SHARESINK_PROTOCOL_DECODE) naming the bad field. */
export function decodeMemberAssignment(bytes: Uint8Array): MemberAssignment {
  const f = Fields.parse(bytes, 'the assignment from the group leader');
  return {
    leaderId: f.str('leaderId'),
    leaderUrl: f.str('leaderUrl'),
    configOffset: f.offset('configOffset'),
    connectors: f.strings('connectors'),
    tasks: f.tasks('tasks'),
    revokedConnectors: f.strings('revokedConnectors'),
    revokedTasks: f.tasks('revokedTasks'),
    delayMs: f.num('delayMs'),
    members: f.objects('members').map((m) => ({
      memberId: m.str('memberId'),
      workerId: m.str('workerId'),
      restUrl: m.str('restUrl'),
      configOffset: m.offset('configOffset'),
    })),
  };
}
