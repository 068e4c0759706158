/**
 * What a connector's converters will do to records that a person may not expect. Connect's
 * JsonConverter reads `{"schema": …, "payload": …}` envelopes unless `schemas.enable=false`, and it is
 * also what a worker without converter settings gets; plain JSON then fails conversion on every
 * record. In share mode a record that fails conversion is REJECTed (archived, or dead-lettered), so
 * the first batch of a topic of plain JSON would be lost to a setting left out. Said once at start.
 */
import type { ConnectorConfig } from './types.js';

const JSON_CONVERTERS = new Set(['JsonConverter', 'org.apache.kafka.connect.json.JsonConverter']);

/** One notice per key / value converter that is JsonConverter with `schemas.enable` left to its default. */
export function jsonEnvelopeNotices(
  config: Pick<ConnectorConfig, 'converters' | 'groupProtocol'> & Partial<Pick<ConnectorConfig, 'raw'>>,
): string[] {
  const notices: string[] = [];
  for (const part of ['key', 'value'] as const) {
    const spec = config.converters[part];
    if (!JSON_CONVERTERS.has(spec.className) || spec.props['schemas.enable'] !== undefined) continue;
    const lost =
      config.groupProtocol === 'share'
        ? 'fails conversion: in share mode those records are REJECTed (archived, or sent to the group’s dead-letter topic), and with errors.tolerance=none the task fails'
        : 'fails conversion, and with errors.tolerance=none the task fails';
    notices.push(
      `${part}.converter is JsonConverter with schemas.enable=true (its default, as in Connect; also what a ` +
        `worker without ${part}.converter gets): each ${part} must be a {"schema", "payload"} envelope. Plain JSON ${lost}. ` +
        `For plain JSON set ${part}.converter.schemas.enable=false${where(config.raw, part)}; to keep envelopes, set it to true and this note goes.`,
    );
  }
  return notices;
}

/**
 * Where the fix goes when the converter is the worker's: a connector's own `…converter.schemas.enable`
 * applies only with its own `…converter` (as in Connect), which is what a person gets wrong.
 */
function where(raw: Readonly<Record<string, string>> | undefined, part: 'key' | 'value'): string {
  if (raw === undefined || (raw[`${part}.converter`] ?? '').trim() !== '') return '';
  return ` in the worker file (or set both ${part}.converter and ${part}.converter.schemas.enable in the connector file: a connector's converter settings apply only with its own converter)`;
}
