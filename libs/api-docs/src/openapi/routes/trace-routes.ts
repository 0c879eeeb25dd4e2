import { z } from 'zod';
import { type RouteDoc, problem } from '../route-doc';
import { ExecutionTrace } from '../schemas/trace-schemas';

/** The investigation of one execution over HTTP (intake reads the event store): what the console's execution page shows. */
export const traceRoutes: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/admin/executions/{execution_id}/trace',
    services: ['intake'],
    tag: 'Executions (admin)',
    operationId: 'traceExecution',
    summary: 'The timeline and the five questions of an investigation, as `onceport trace` answers them',
    description:
      'Read from the event store. The timeline shows the first 500 events (`timeline_capped` says when there are more) with arguments withheld; later executions of the same intent are capped at 50.',
    caller: 'admin',
    parameters: [{ name: 'execution_id', in: 'path', required: true, description: 'The execution id (`exe_…`).', schema: z.string() }],
    responses: {
      '200': { description: 'The trace.', body: ExecutionTrace },
      '400': problem('Not an execution id (`invalid_execution_id`).'),
      '401': problem('No or wrong admin key (an agent key is not one).'),
      '404': problem('No such execution (`execution_not_found`).'),
    },
  },
];
