/**
 * HttpSink under `sharesink check --record-http` (API: `recordHttp: true`): the run's `http.url` is
 * pointed at the kit's recorder (its path and `${topic}` kept, scheme and host replaced), and the
 * observer returns the bodies the recorder received.
 */
import type { HttpRecorder } from '../http-recorder.js';
import type { SinkObserver } from './types.js';

/** The connector's properties with `http.url` sent to the recorder instead. */
export function pointAtRecorder(
  connector: Readonly<Record<string, string>>,
  recorderUrl: string,
): Record<string, string> {
  const url = connector['http.url']?.trim() ?? '';
  // the path only: ${topic} in it must survive, so no URL parsing (it would percent-encode the braces)
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  return { ...connector, 'http.url': `${recorderUrl}${path.startsWith('/') ? path : `/${path}`}` };
}

/** Every body the recorder kept; the kit counts the run's ids in them. */
export function recorderObserver(recorder: HttpRecorder): SinkObserver {
  return () => recorder.bodies();
}
