/** What the JDBC sink says once at start: the settings it does not use, and what it does about order. */
import type { ConnectorNote } from '../../connect/sink-connector.js';
import type { JdbcSettings } from './config.js';
import { VERSIONS_TABLE } from './dialect.js';
import { overwrites } from './plan.js';
import { unusedIn } from './unused-keys.js';

export function startNotes(
  props: Readonly<Record<string, string>>,
  s: JdbcSettings,
  share: boolean,
): ConnectorNote[] {
  const notes: ConnectorNote[] = [];
  const unused = unusedIn(props);
  if (unused.length > 0)
    notes.push({
      level: 'notice',
      message: `JDBC sink settings with no effect in sharesink: ${unused.map((u) => `${u.key}: ${u.reason}`).join('; ')}`,
    });
  if (!overwrites(s)) return notes;
  const what = `insert.mode=${s.insertMode}, pk.mode=${s.pkMode}${s.deleteEnabled ? ', delete.enabled=true' : ''}`;
  if (s.ordered)
    notes.push({
      level: 'notice',
      message: `order guard on (${what}): a row is written or deleted only when its record is newer than the last one written for its key (same topic and partition, higher offset), kept in the table ${VERSIONS_TABLE}; records of one key from different partitions are last-writer-wins`,
    });
  else if (share)
    notes.push({
      level: 'warn',
      message: `share mode does not order records, and order.guard=false with ${what}: an older record of a key (a redelivery after a lock expiry, or another task's put) can overwrite a newer one; remove order.guard=false`,
    });
  return notes;
}
