/**
 * Connect's `/admin/loggers` (KIP-495, KIP-976's `scope` and `last_modified`) over the runtime's pino
 * child loggers (see observability/log-levels.ts for the names). Behind the same authentication as
 * every other path. Connect's `admin.listeners`: empty turns these endpoints off, as in Connect; a
 * listener there is not opened (sharesink has one server), the endpoints stay on `listeners`.
 */
import type { Logger } from 'pino';
import { ADMIN_LISTENERS_KEY, adminEndpointsEnabled } from '../../config/admin-listeners.js';
import { notice } from '../../logger.js';
import { CONNECT_LEVELS, type LogLevels } from '../../observability/log-levels.js';
import { badRequest, notFound } from '../server/errors.js';
import type { Router } from '../server/router.js';

export function addLoggersRoutes(
  router: Router,
  levels: LogLevels,
  log: Logger,
  raw: Readonly<Record<string, string>> | undefined,
): void {
  if (!adminEndpointsEnabled(raw)) {
    log.info(`${ADMIN_LISTENERS_KEY} is empty: the /admin/loggers endpoints are not served`);
    return;
  }
  const elsewhere = raw?.[ADMIN_LISTENERS_KEY];
  if (elsewhere !== undefined)
    log.warn(
      `${ADMIN_LISTENERS_KEY}=${elsewhere}: not opened; sharesink serves /admin/loggers on listeners, behind the same authentication (leave ${ADMIN_LISTENERS_KEY} empty to turn those endpoints off)`,
    );
  router
    .add('GET', '/admin/loggers', () => ({ status: 200, json: levels.all() }))
    .add('GET', '/admin/loggers/:logger', (req) => {
      const name = req.params['logger']!;
      const level = levels.level(name);
      if (level === undefined) throw notFound(`Logger ${name} not found. Known loggers: GET /admin/loggers`);
      return { status: 200, json: level };
    })
    .add('PUT', '/admin/loggers/:logger', async (req) => {
      const name = req.params['logger']!;
      const body = await req.json();
      const text =
        typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['level'] : undefined;
      if (typeof text !== 'string')
        throw badRequest(`Desired 'level' parameter was not specified in request; send {"level": "DEBUG"}`);
      const level = levels.pinoLevel(text);
      if (level === undefined)
        throw badRequest(`Invalid log level '${text}'; accepted: ${CONNECT_LEVELS.join(', ')}`);
      const scope = (req.query.get('scope') ?? 'worker').toLowerCase();
      if (scope !== 'worker' && scope !== 'cluster')
        log.warn({ scope }, `unknown scope for PUT /admin/loggers/${name}; using worker, as Connect does`);
      const changed = levels.setLevel(name, level);
      notice(
        log,
        { logger: name, newLevel: text.toUpperCase(), changed },
        `log level of ${name} set to ${text.toUpperCase()}`,
      );
      // a standalone worker is its whole cluster; Connect answers a cluster-wide change with no content
      return scope === 'cluster' ? { status: 204 } : { status: 200, json: changed };
    });
}
