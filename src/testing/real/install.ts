/**
 * What `sharesink check-worker` does before it runs `standalone`: the worker process of a check run
 * sends its broker connections through the kit's relays and loads the author's connector module for
 * the hooked connector to wrap.
 */
import { loadConnectorModule, resolveConnectorModule } from '../../connect/connector-module.js';
import { ConnectError } from '../../connect/errors.js';
import { INNER_CLASS_ENV } from './control.js';
import { setInnerConnector } from './hooked-connector.js';
import { installRedirects } from './redirect.js';

export async function installCheckHooks(): Promise<void> {
  const inner = process.env[INNER_CLASS_ENV];
  if (inner === undefined || inner === '')
    throw new ConnectError('sharesink check-worker is started by sharesink check, not by hand');
  installRedirects();
  setInnerConnector(await loadConnectorModule(resolveConnectorModule(inner)));
}
