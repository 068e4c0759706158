/** Connect's REST resources over one herder, each route registered once. */
import type { Herder } from '../../herder/herder.js';
import type { Router } from '../server/router.js';
import { addConnectorPluginsResource } from './connector-plugins.js';
import { addConnectorsResource } from './connectors.js';
import { addOffsetsResource } from './offsets.js';
import { addRootResource, type RootOptions } from './root.js';
import { addTasksResource } from './tasks.js';
import { addTopicsResource } from './topics.js';

export type { RootOptions } from './root.js';

export function addConnectResources(router: Router, herder: Herder, o: RootOptions): void {
  addRootResource(router, herder, o);
  addConnectorsResource(router, herder);
  addTasksResource(router, herder);
  addOffsetsResource(router, herder);
  addTopicsResource(router, herder);
  addConnectorPluginsResource(router, herder);
}
