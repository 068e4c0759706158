/**
 * Connect's `admin.listeners`, for the `/admin/loggers` endpoints. Connect serves them on a listener of
 * their own when this is set; sharesink has one server, so only the empty form, which turns them off
 * in Connect too, changes anything here.
 */
import type { ConfigDef } from '../connect/config-def.js';

export const ADMIN_LISTENERS_KEY = 'admin.listeners';

export function defineAdminListeners<T extends ConfigDef<Record<string, unknown>>>(def: T): T {
  def.define({
    name: ADMIN_LISTENERS_KEY,
    type: 'list',
    default: null,
    importance: 'low',
    group: 'worker',
    documentation:
      "Connect's listener for the admin endpoints (`/admin/loggers`). Empty (`admin.listeners=`): those endpoints are not served, as in Connect. Unset: they are served on `listeners`, behind its authentication. Any other value: no second listener is opened (sharesink has one server), the endpoints stay on `listeners`, and the REST server says so at start.",
  });
  return def;
}

/** False when the worker file turns the admin endpoints off with an empty `admin.listeners`. */
export function adminEndpointsEnabled(raw: Readonly<Record<string, string>> | undefined): boolean {
  const value = raw?.[ADMIN_LISTENERS_KEY];
  return value === undefined || value.trim() !== '';
}
