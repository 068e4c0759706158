/** Notes a Connect user's files get for settings that do nothing here, or something else than in Connect. */
import { describe, expect, it } from 'vitest';
import { compileConnectorConfig } from '../../../src/config/index.js';
import { base, worker } from './config-helpers.js';

const compile = (props: Record<string, string>) => compileConnectorConfig({ ...base, ...props }, worker);

describe('errors.retry.timeout > 0: Connect does not apply it to put(), sharesink does', () => {
  it('classic mode says what happens to the batch after that long, by errors.tolerance', () => {
    expect(compile({ 'errors.retry.timeout': '300000' }).warnings).toEqual([
      'errors.retry.timeout=300000: here it bounds the retries of a put() that fails retriably (Connect applies it only to conversions and transforms, and retries such a put() until it succeeds): a batch whose put() still fails after 300000 ms is a failure that stops the task. Set errors.retry.timeout=0 to retry until the put succeeds, as Connect does',
    ]);
    const tolerant = compile({
      'errors.retry.timeout': '300000',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
    });
    expect(tolerant.warnings).toEqual([
      'errors.retry.timeout=300000: here it bounds the retries of a put() that fails retriably (Connect applies it only to conversions and transforms, and retries such a put() until it succeeds): a batch whose put() still fails after 300000 ms is skipped (written to orders-dlq) and committed. Set errors.retry.timeout=0 to retry until the put succeeds, as Connect does',
    ]);
  });

  it('0 and -1 (retry until it succeeds, as Connect does for put()) say nothing', () => {
    expect(compile({ 'errors.retry.timeout': '0' }).warnings).toEqual([]);
    expect(compile({ 'errors.retry.timeout': '-1' }).warnings).toEqual([]);
  });
});

describe('transforms: settings that do nothing are named with the fix', () => {
  it('negate under a predicate: predicates have none, and the transforms to set it on are named', () => {
    const config = compile({
      transforms: 'addSrc,drop',
      'transforms.addSrc.type': 'InsertField$Value',
      'transforms.addSrc.topic.field': 'src',
      'transforms.addSrc.predicate': 'isTest',
      'transforms.drop.type': 'Filter',
      'transforms.drop.predicate': 'isTest',
      predicates: 'isTest',
      'predicates.isTest.type': 'TopicNameMatches',
      'predicates.isTest.pattern': '.*-test',
      'predicates.isTest.negate': 'true',
    });
    expect(config.warnings).toEqual([
      'predicates.isTest.negate: predicates have no negate setting; ignored, so the transforms that use isTest run on the records it matches. To invert it, set transforms.addSrc.negate=true, transforms.drop.negate=true',
    ]);
    expect(config.transforms.transforms.map((t) => t.negate)).toEqual([false, false]);
  });

  it('InsertField static.field without static.value inserts nothing, as in Connect', () => {
    const config = compile({
      transforms: 'src',
      'transforms.src.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.src.static.field': 'source',
    });
    expect(config.warnings).toEqual([
      'transforms.src.static.field: set without transforms.src.static.value, so no static field is inserted (as in Connect); set transforms.src.static.value',
    ]);
  });
});
