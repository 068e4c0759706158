import { describe, expect, it } from 'vitest';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { printableTaskConfig } from '../../../src/config/printable.js';
import { connectorInfo, taskInfos } from '../../../src/herder/connect-shapes.js';
import { validateConfig } from '../../../src/rest/plugins/plugins.js';
import type { RestConnector } from '../../../src/rest/worker-view.js';

const JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="rest-secret-1";';

describe('secrets in the REST answers', () => {
  process.env['SHARESINK_TEST_TOPIC_2'] = 'orders';
  const worker = compileWorkerConfig({ 'bootstrap.servers': 'kafka:9092', 'config.providers': 'env' });
  const config = compileConnectorConfig(
    {
      name: 'c1',
      'connector.class': 'noop',
      topics: '${env:SHARESINK_TEST_TOPIC_2}',
      'consumer.override.security.protocol': 'SASL_PLAINTEXT',
      'consumer.override.sasl.mechanism': 'PLAIN',
      'consumer.override.sasl.jaas.config': JAAS,
    },
    worker,
  );
  const rest = { config, taskConfigs: [{ ...config.raw }] } as unknown as RestConnector;

  it('GET /connectors/{name}, /config and /tasks: [hidden], and references as written', () => {
    const info = connectorInfo(rest);
    expect(info.config['consumer.override.sasl.jaas.config']).toBe('[hidden]');
    expect(info.config['topics']).toBe('${env:SHARESINK_TEST_TOPIC_2}');
    const [task] = taskInfos(rest);
    expect(task!.config['consumer.override.sasl.jaas.config']).toBe('[hidden]');
    expect(task!.config['topics']).toBe('${env:SHARESINK_TEST_TOPIC_2}');
    expect(JSON.stringify([info, task])).not.toContain('rest-secret-1');
    // a value the task changed is its own, not the connector's reference
    expect(printableTaskConfig({ topics: 'other' }, config)).toEqual({ topics: 'other' });
  });

  it('PUT /connector-plugins/{plugin}/config/validate answers [hidden] for secrets', async () => {
    const answer = await validateConfig(
      'noop',
      {
        name: 'c1',
        topics: 'orders',
        'consumer.override.sasl.jaas.config': JAAS,
        'consumer.override.sasl.mechanism': 'GSSAPI',
        'consumer.override.security.protocol': 'SASL_SSL',
      },
      worker,
    );
    const jaas = answer.configs.find((c) => c.value.name === 'consumer.override.sasl.mechanism');
    expect(jaas?.value.errors[0]).toMatch(/"GSSAPI" is not supported/);
    expect(JSON.stringify(answer)).not.toContain('rest-secret-1');
  });
});
