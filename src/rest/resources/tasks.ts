/** Connect's tasks endpoints over the herder: task configs, a task's status, a task's restart. */
import type { Herder } from '../../herder/herder.js';
import { onLeader } from '../server/forward.js';
import type { Router } from '../server/router.js';
import { connectorName, json, taskId } from './request.js';

export function addTasksResource(router: Router, herder: Herder): void {
  router
    .add('GET', '/connectors/:name/tasks', (req) => json(herder.taskConfigs(connectorName(req))))
    .add('GET', '/connectors/:name/tasks/:task/status', (req) =>
      json(herder.taskStatus(connectorName(req), taskId(herder, req))),
    )
    .add('POST', '/connectors/:name/tasks/:task/restart', (req) => {
      const task = taskId(herder, req);
      return onLeader(req, undefined, async () => {
        await herder.restartTask(connectorName(req), task);
        return { status: 204 };
      });
    });
}
