import { describe, expect, it } from 'vitest';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { jsonEnvelopeNotices } from '../../../src/config/converter-notices.js';

const notices = (groupProtocol: 'share' | 'classic', ...layers: Record<string, string>[]) =>
  jsonEnvelopeNotices({ converters: convertersFromProps(...layers), groupProtocol });

describe('the JsonConverter envelope notice', () => {
  it('a worker without converter settings gets JsonConverter with schemas: one notice for keys, one for values', () => {
    const said = notices('share', {});
    expect(said).toHaveLength(2);
    expect(said[0]).toMatch(/^key\.converter is JsonConverter with schemas\.enable=true/);
    expect(said[1]).toMatch(/^value\.converter is JsonConverter with schemas\.enable=true/);
    expect(said[1]).toContain('in share mode those records are REJECTed');
    expect(said[1]).toContain('set value.converter.schemas.enable=false');
  });

  it('classic mode says the task fails, not that records are rejected', () => {
    const [value] = notices('classic', { 'key.converter': 'StringConverter' });
    expect(value).toContain('fails conversion, and with errors.tolerance=none the task fails.');
    expect(value).not.toContain('REJECT');
  });

  it('says nothing once schemas.enable is set either way, or for other converters', () => {
    expect(
      notices(
        'share',
        { 'key.converter': 'JsonConverter', 'key.converter.schemas.enable': 'true' },
        {
          'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'value.converter.schemas.enable': 'false',
        },
      ),
    ).toEqual([]);
    expect(
      notices('share', { 'key.converter': 'StringConverter', 'value.converter': 'ByteArrayConverter' }),
    ).toEqual([]);
  });

  it('a connector’s own converter wins over the worker’s, with its own settings', () => {
    const worker = {
      'value.converter': 'JsonConverter',
      'value.converter.schemas.enable': 'false',
      'key.converter': 'StringConverter',
    };
    expect(notices('share', worker, {})).toEqual([]);
    expect(notices('share', worker, { 'value.converter': 'JsonConverter' })).toHaveLength(1);
  });
});
