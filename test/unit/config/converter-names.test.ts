import { describe, expect, it } from 'vitest';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from '../../../src/config/converter-names.js';
import { REGISTRY_CONVERTER_NAMES } from '../../../src/config/converter-names.js';
import { createConverters, DEFAULT_CONVERTERS } from '../../../src/connect/converters/registry.js';

describe('converter names the config accepts', () => {
  const refuseImports = () => Promise.reject(new Error('no import expected'));

  it.each(BUILTIN_VALUE_CONVERTERS)('%s is built into the registry', async (className) => {
    // the Schema Registry converters need a registry URL; configuring them does not contact it
    const props: Record<string, string> = REGISTRY_CONVERTER_NAMES.includes(className)
      ? { 'schema.registry.url': 'http://127.0.0.1:18081/apis/ccompat/v7' }
      : {};
    const config = { ...DEFAULT_CONVERTERS, key: { className, props }, value: { className, props } };
    await expect(createConverters(config, refuseImports)).resolves.toBeDefined();
  });

  it.each(BUILTIN_HEADER_CONVERTERS)(
    '%s is built into the registry as a header converter',
    async (className) => {
      const config = { ...DEFAULT_CONVERTERS, header: { className, props: {} } };
      await expect(createConverters(config, refuseImports)).resolves.toBeDefined();
    },
  );
});
