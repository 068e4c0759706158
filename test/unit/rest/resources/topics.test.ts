// KIP-558's endpoints, standalone and distributed: the active topics, the reset (202), and Connect's 403s
// when the worker turns tracking or its reset off.
import { describe, expect, it } from 'vitest';
import { compileWorkerConfig } from '../../../../src/config/compile-worker.js';
import { ConfigState } from '../../../../src/distributed/herder/config-state.js';
import type { DistributedWorker } from '../../../../src/distributed/herder/distributed-worker.js';
import { Router } from '../../../../src/rest/server/router.js';
import { addDistributedTopicsRoutes, addTopicsRoutes } from '../../../../src/rest/resources/topics.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';
import { callRoute } from '../route-request.js';

function answer(router: Router, method: string, path: string) {
  return callRoute(router, method, path).catch((e: { status: number; code: string; message: string }) => ({
    status: e.status,
    code: e.code,
    message: e.message,
  }));
}

const worker = (settings: Record<string, string>) =>
  compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', ...settings });

const DISABLED = /^Topic tracking is disabled\. Set topic\.tracking\.enable=true/;
const NO_RESET = /^Topic tracking reset is disabled\. Set topic\.tracking\.allow\.reset=true/;

describe('active topics, standalone', () => {
  const standalone = (settings: Record<string, string>) => {
    const orders = new FakeConnector('orders', 1);
    orders.topicsSeen = ['orders'];
    const w = { ...fakeWorker([orders]), config: worker(settings) };
    const router = new Router();
    addTopicsRoutes(router, w);
    return { router, orders };
  };

  it('the topics, a reset, a 404 for an unknown connector', async () => {
    const { router, orders } = standalone({});
    expect(await answer(router, 'GET', '/connectors/orders/topics')).toEqual({
      status: 200,
      json: { orders: { topics: ['orders'] } },
    });
    expect(await answer(router, 'PUT', '/connectors/orders/topics/reset')).toEqual({ status: 202 });
    expect(orders.topicResets).toBe(1);
    expect(await answer(router, 'GET', '/connectors/nope/topics')).toMatchObject({ status: 404 });
  });

  it("topic.tracking.enable=false: 403 for both, before the connector is looked up (Connect's order)", async () => {
    const { router, orders } = standalone({ 'topic.tracking.enable': 'false' });
    for (const [method, path] of [
      ['GET', '/connectors/orders/topics'],
      ['PUT', '/connectors/orders/topics/reset'],
      ['GET', '/connectors/nope/topics'],
    ] as const)
      expect(await answer(router, method, path)).toMatchObject({
        status: 403,
        code: 'SHARESINK_REST_FORBIDDEN',
        message: expect.stringMatching(DISABLED),
      });
    expect(orders.topicResets).toBe(0);
  });

  it('topic.tracking.allow.reset=false: the topics are read, the reset is a 403', async () => {
    const { router, orders } = standalone({ 'topic.tracking.allow.reset': 'false' });
    expect(await answer(router, 'GET', '/connectors/orders/topics')).toMatchObject({ status: 200 });
    expect(await answer(router, 'PUT', '/connectors/orders/topics/reset')).toMatchObject({
      status: 403,
      message: expect.stringMatching(NO_RESET),
    });
    expect(orders.topicResets).toBe(0);
  });
});

describe('active topics, distributed', () => {
  const distributed = (settings: Record<string, string>, started = true) => {
    const state = new ConfigState();
    state.apply(
      { kind: 'connector', name: 'pg', config: { 'connector.class': 'NoopSink', topics: 'a,b' } },
      0n,
    );
    const topics = new Map([['pg', ['b', 'a']]]);
    const calls: string[] = [];
    const w = {
      started,
      config: worker(settings),
      distributed: { workerSyncTimeoutMs: 1234 },
      herder: {
        state,
        statusStore: {
          topics: (name: string) => [...(topics.get(name) ?? [])].sort(),
          removeTopics: (name: string) => (
            calls.push(`remove ${name}`),
            topics.delete(name),
            Promise.resolve()
          ),
          readToEnd: (ms: number) => (calls.push(`read ${ms}`), Promise.resolve()),
        },
      },
    } as unknown as DistributedWorker;
    const router = new Router();
    addDistributedTopicsRoutes(router, w);
    return { router, calls };
  };

  it('answers from the status topic; a reset writes the tombstones and reads them back before its 202', async () => {
    const { router, calls } = distributed({});
    expect(await answer(router, 'GET', '/connectors/pg/topics')).toEqual({
      status: 200,
      json: { pg: { topics: ['a', 'b'] } },
    });
    expect(await answer(router, 'PUT', '/connectors/pg/topics/reset')).toEqual({ status: 202 });
    expect(calls).toEqual(['remove pg', 'read 1234']);
    expect(await answer(router, 'GET', '/connectors/pg/topics')).toMatchObject({
      json: { pg: { topics: [] } },
    });
    expect(await answer(router, 'PUT', '/connectors/nope/topics/reset')).toMatchObject({ status: 404 });
  });

  it('403 when turned off, 409 while the worker joins', async () => {
    const off = distributed({ 'topic.tracking.enable': 'false' });
    expect(await answer(off.router, 'GET', '/connectors/pg/topics')).toMatchObject({
      status: 403,
      message: expect.stringMatching(DISABLED),
    });
    const noReset = distributed({ 'topic.tracking.allow.reset': 'false' });
    expect(await answer(noReset.router, 'PUT', '/connectors/pg/topics/reset')).toMatchObject({
      status: 403,
      message: expect.stringMatching(NO_RESET),
    });
    expect(noReset.calls).toEqual([]);
    const joining = distributed({}, false);
    expect(await answer(joining.router, 'GET', '/connectors/pg/topics')).toMatchObject({ status: 409 });
  });
});
