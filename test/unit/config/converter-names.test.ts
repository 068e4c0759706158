import { describe, expect, it } from 'vitest';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from '../../../src/config/converter-names.js';
import { createConverters, DEFAULT_CONVERTERS } from '../../../src/connect/converters/registry.js';

describe('converter names the config accepts', () => {
  const refuseImports = () => Promise.reject(new Error('no import expected'));

  it.each(BUILTIN_VALUE_CONVERTERS)('%s is built into the registry', async (className) => {
    const config = { ...DEFAULT_CONVERTERS, key: { className, props: {} }, value: { className, props: {} } };
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
