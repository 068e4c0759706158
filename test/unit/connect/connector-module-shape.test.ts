// A connector module written in JavaScript gets no compiler check of SinkConnector's and SinkTask's
// abstract methods: a missing config() showed only when the worker first called it, as
// "sharesink: this.config is not a function" (seen from the CLI). The module's shape is checked at load.
import { describe, expect, it } from 'vitest';
import { asConnectorModule } from '../../../src/connect/connector-module.js';
import { ConfigDef, SinkConnector, SinkTask } from '../../../src/connect/index.js';

class Task extends SinkTask {
  version() {
    return '1';
  }
  start() {}
  put() {}
  stop() {}
}

class Connector extends SinkConnector {
  version() {
    return '1';
  }
  config() {
    return new ConfigDef();
  }
  start() {}
  taskClass() {
    return Task;
  }
  taskConfigs() {
    return [{}];
  }
  stop() {}
}

/** A subclass without some methods, as a JavaScript author may write it. */
function without<T extends abstract new () => object>(base: T, ...names: string[]): T {
  const cls = class extends (base as unknown as new () => object) {};
  for (const n of names) Object.defineProperty(cls.prototype, n, { value: undefined });
  return cls as unknown as T;
}

describe('connector module shape', () => {
  it('accepts a complete module', () => {
    expect(asConnectorModule({ connector: Connector, task: Task }, 'm.mjs').task).toBe(Task);
  });

  it('names every missing method of the connector and the task, and what to extend', () => {
    const connector = without(Connector, 'config', 'taskConfigs');
    const task = without(Task, 'put');
    let err: (Error & { code?: string }) | undefined;
    try {
      asConnectorModule({ connector, task }, '/plugins/m.mjs');
    } catch (e) {
      err = e as Error & { code?: string };
    }
    expect(err?.code).toBe('SHARESINK_CONNECTOR_MODULE_INVALID');
    expect(err?.message).toContain(
      '/plugins/m.mjs lacks connector.config(), connector.taskConfigs(), task.put()',
    );
    expect(err?.message).toContain('extend SinkConnector');
    expect(err?.message).toContain('extend SinkTask');
  });

  it('accepts methods written as instance fields', () => {
    const task = without(Task, 'put');
    const withField = class extends task {
      override put = (): void => undefined;
    };
    expect(() => asConnectorModule({ connector: Connector, task: withField }, 'm.mjs')).not.toThrow();
  });

  it('makes an instance of a class once at most, and a constructor that throws does not hide a missing method', () => {
    let made = 0;
    const task = without(Task, 'put');
    const counted = class extends task {
      override put = (): void => undefined;
      constructor() {
        super();
        made++;
      }
    };
    asConnectorModule({ connector: Connector, task: counted }, 'm.mjs');
    asConnectorModule({ connector: Connector, task: counted }, 'm.mjs');
    expect(made).toBe(1);
    const throwing = class extends without(Task, 'put') {
      constructor() {
        super();
        throw new Error('needs arguments');
      }
    };
    expect(() => asConnectorModule({ connector: Connector, task: throwing }, 'm.mjs')).toThrow(
      'm.mjs lacks task.put()',
    );
  });
});
