import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { tutorialsInfo } from '#services/tutorials';

export const clientTutorialRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/get-tutorials-info',
    operationId: 'getTutorialsInfo',
    response: z.object({ tutorials: z.array(z.unknown()) }),
    summary:
      "The tutorials shipped with the build, each with the caller's completion state (complete one with the completeTutorial mutation)",
    auth: 'user',
    async handler({ deps, actor }) {
      return { tutorials: await tutorialsInfo(deps, actor) };
    },
  }),
];
