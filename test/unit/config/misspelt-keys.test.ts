// A misspelt key that decides the mode ran the connector in the other one with a per-task line only:
// `consumer.override.group.protocl=share` gave classic mode and "consumer settings classic mode does not
// use"; `topic=orders` said only that neither topics nor topics.regex was set (both seen from the CLI).
import { describe, expect, it } from 'vitest';
import { compileConnectorConfig } from '../../../src/config/index.js';
import { base, problemsOf, worker } from './config-helpers.js';

const compile = (props: Record<string, string>) => compileConnectorConfig(props, worker);

describe('misspelt keys', () => {
  it('a consumer override a couple of edits from a consumer setting is named with the likely one', () => {
    const config = compile({
      ...base,
      'consumer.override.group.protocl': 'share',
      'consumer.override.max.poll.record': '100',
    });
    expect(config.groupProtocol).toBe('classic');
    expect(config.warnings).toEqual([
      'consumer.override.group.protocl: not a Kafka consumer setting; ignored (did you mean consumer.override.group.protocol?): the connector runs in the worker default mode, not the one asked for',
      'consumer.override.max.poll.record: not a Kafka consumer setting; ignored (did you mean consumer.override.max.poll.records?)',
    ]);
  });

  it('leaves real consumer settings and keys far from all of them alone', () => {
    const config = compile({
      ...base,
      'consumer.override.receive.buffer.bytes': '65536',
      'consumer.override.my.client.plugin.setting': 'x',
      'consumer.override.max.poll.records': '100',
    });
    expect(config.warnings).toEqual([]);
  });

  it('names a near miss of topics when neither topics nor topics.regex is set', () => {
    const { topics: _topics, ...noTopics } = base as Record<string, string>;
    expect(problemsOf(() => compile({ ...noTopics, topic: 'orders' }))).toEqual([
      'topics: neither topics nor topics.regex is set (topic=orders is set: did you mean topics?); accepted: exactly one of topics (a comma-separated list of topic names) or topics.regex (a regular expression matching whole topic names)',
    ]);
  });
});
