import { describe, expect, it } from 'vitest';
import { compileConnectorConfig, validateWorkerConfig } from '../../../src/config/index.js';
import { BUILTIN_CONVERTER_SETTINGS } from '../../../src/config/converter-checks.js';
import {
  BUILTIN_HEADER_CONVERTERS,
  BUILTIN_VALUE_CONVERTERS,
  REGISTRY_CONVERTER_NAMES,
} from '../../../src/config/converter-names.js';
import { jsonEnvelopeNotices } from '../../../src/config/converter-notices.js';
import { createConverters, DEFAULT_CONVERTERS } from '../../../src/connect/converters/registry.js';
import { base, problemsOf, worker } from './config-helpers.js';

const compile = (props: Record<string, string>, w = worker) =>
  compileConnectorConfig({ ...base, ...props }, w);

describe('converter settings are checked when the files are compiled', () => {
  it('a value the built-in converter refuses is a problem under its full key (it used to fail the task at the first record)', () => {
    expect(
      problemsOf(() => compile({ 'key.converter': 'StringConverter', 'key.converter.encoding': 'UTF-16' })),
    ).toEqual([
      'key.converter.encoding: "UTF-16" is not one of the accepted values; accepted: a string, one of utf-8, utf8, utf-16le, utf16le, iso-8859-1, latin1, us-ascii, ascii',
    ]);
    expect(
      validateWorkerConfig({
        'bootstrap.servers': 'localhost:9092',
        'value.converter': 'JsonConverter',
        'value.converter.schemas.enable': 'flase',
      }).problems,
    ).toEqual(['value.converter.schemas.enable: "flase" is not true or false; accepted: true or false']);
  });

  it('a setting the converter does not have is a note, with a did-you-mean for a typo', () => {
    const config = compile({
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enabled': 'false',
      'value.converter.schema.registry.url': 'http://localhost:8081',
      'value.converter.schemas.enable': 'false',
    });
    expect(config.warnings).toEqual([
      'value.converter.schemas.enabled: not a setting of JsonConverter; ignored (did you mean value.converter.schemas.enable?)',
      'value.converter.schema.registry.url: not a setting of JsonConverter; ignored',
    ]);
  });

  it("a connector's converter settings without its own converter are ignored, as in Connect, and it says so", () => {
    const config = compile({
      'value.converter.schemas.enable': 'false',
      'key.converter.schemas.enable': 'false',
    });
    expect(config.converters.value.props).toEqual({});
    expect(config.warnings).toEqual([
      "key.converter.schemas.enable: ignored, as in Connect: this connector does not set key.converter, so the worker's key.converter (JsonConverter) runs with the worker file's key.converter.* settings; to apply it, also set key.converter=JsonConverter in this connector file",
      "value.converter.schemas.enable: ignored, as in Connect: this connector does not set value.converter, so the worker's value.converter (JsonConverter) runs with the worker file's value.converter.* settings; to apply it, also set value.converter=JsonConverter in this connector file",
    ]);
    // and the envelope notice says where the fix goes, rather than asking for what the file already has
    const [, value] = jsonEnvelopeNotices(config);
    expect(value).toContain(
      "For plain JSON set value.converter.schemas.enable=false in the worker file (or set both value.converter and value.converter.schemas.enable in the connector file: a connector's converter settings apply only with its own converter)",
    );
  });

  it('knows every built-in converter by every name the registry builds, and only those', async () => {
    expect([...BUILTIN_CONVERTER_SETTINGS.keys()].sort()).toEqual(
      [...new Set([...BUILTIN_HEADER_CONVERTERS, ...BUILTIN_VALUE_CONVERTERS])].sort(),
    );
    for (const [name, builtin] of BUILTIN_CONVERTER_SETTINGS) {
      if (REGISTRY_CONVERTER_NAMES.includes(name)) {
        // key/value converters only; every setting they read is accepted with a valid value
        const props: Record<string, string> = {
          'schema.registry.url': 'http://127.0.0.1:18081/apis/ccompat/v7,http://127.0.0.1:18082',
          'basic.auth.credentials.source': 'USER_INFO',
          'basic.auth.user.info': 'u:p',
          'schemas.cache.config': '10',
          'http.read.timeout.ms': '1000',
        };
        expect(builtin.settings).toEqual(expect.arrayContaining(Object.keys(props)));
        await expect(
          createConverters({ ...DEFAULT_CONVERTERS, value: { className: name, props } }),
        ).resolves.toBeDefined();
        continue;
      }
      const props = Object.fromEntries(
        builtin.settings.map((s) => [
          s,
          s === 'schemas.cache.size'
            ? '10'
            : s.includes('encoding')
              ? 'utf-8'
              : s === 'decimal.format'
                ? 'NUMERIC'
                : 'true',
        ]),
      );
      await expect(
        createConverters({
          key: { className: 'StringConverter', props: {} },
          value: { className: 'StringConverter', props: {} },
          header: { className: name, props },
        }),
      ).resolves.toBeDefined();
    }
  });
});
