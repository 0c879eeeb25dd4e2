import { z } from 'zod';
import {
  ApprovalList,
  ApproverView,
  CampaignGrantRequest,
  CampaignView,
  QuarantineEntry,
  QuarantineList,
  ReasonRequest,
  ResolveRequest,
  Resolved,
  RevertView,
  ReviewList,
  VaultChange,
  VaultView,
} from '../schemas/admin-schemas';
import { type ParameterDoc, type ResponseDoc, type RouteDoc, problem } from '../route-doc';

const path = (name: string, description: string): ParameterDoc => ({ name, in: 'path', required: true, description, schema: z.string() });
const approvalId = path('approval_id', 'The approval id (`apr_…`).');
const campaign = [path('run_id', 'The run id.'), path('tool', 'The per-use tool.')];
const quarantined = [path('subscriber', 'The projection or consumer that skipped the event.'), path('event_id', 'The event id.')];
const reason = { description: 'The reason, recorded with the admin id.', required: true, schema: ReasonRequest };
const unauthorized = problem(
  'No or wrong admin key (an agent key is not one), or an operator access token that is not valid here (`invalid_token`: expired, another audience or issuer, not signed by the issuer).',
);
const forbidden = problem(
  'A valid operator access token without the `onceport:admin` scope (`insufficient_scope`), or whose `oauth.admin_claim` no admin lists in `oauth_subjects` (`not_an_admin`).',
);
const badRequest = problem('Malformed JSON, or a missing or bad field, named.');
const conflict = (why: string): ResponseDoc => problem(why);

/** Admin routes of one service: an admin key or an operator's access token, problems with a stable `code`. */
function admin(route: Omit<RouteDoc, 'caller'>): RouteDoc {
  return { ...route, caller: 'admin', responses: { '401': unauthorized, '403': forbidden, ...route.responses } };
}

/** The approvals, campaign, vault, revert and quarantine APIs (authorization), and review (reconciler). */
export const adminRoutes: readonly RouteDoc[] = [
  admin({
    method: 'get',
    path: '/v1/admin/approvals',
    services: ['authorization'],
    tag: 'Approvals',
    operationId: 'listApprovals',
    summary: 'Approvals, oldest first',
    description: 'pending: the oldest undecided; any other status: the most recent `limit` of that status.',
    parameters: [
      {
        name: 'status',
        in: 'query',
        description: 'pending (default) | granted | rejected | expired | all',
        schema: z.enum(['pending', 'granted', 'rejected', 'expired', 'all']),
      },
      { name: 'limit', in: 'query', description: '1–1000 (200).', schema: z.string() },
    ],
    responses: { '200': { description: 'The approvals.', body: ApprovalList }, '400': problem('A bad status or limit.') },
  }),
  admin({
    method: 'get',
    path: '/v1/admin/approvals/{approval_id}',
    services: ['authorization'],
    tag: 'Approvals',
    operationId: 'getApproval',
    summary: "One approval, as the approver's view",
    parameters: [approvalId],
    responses: { '200': { description: 'The view.', body: ApproverView }, '404': problem('No such approval.') },
  }),
  ...(['grant', 'reject'] as const).map((decision) =>
    admin({
      method: 'post',
      path: `/v1/admin/approvals/{approval_id}/${decision}`,
      services: ['authorization'],
      tag: 'Approvals',
      operationId: `${decision}Approval`,
      summary: `${decision === 'grant' ? 'Grant' : 'Reject'} an approval with a reason`,
      description: 'Deciding again the same way answers 200 with the current view.',
      parameters: [approvalId],
      body: reason,
      responses: {
        '200': { description: 'Decided: the current view.', body: ApproverView },
        '400': badRequest,
        '404': problem('No such approval.'),
        '409': conflict('Decided the other way, expired, the vault locked (`vault_locked`), or the actor no longer allowed the tool.'),
      },
    }),
  ),
  admin({
    method: 'get',
    path: '/v1/admin/runs/{run_id}/campaigns/{tool}',
    services: ['authorization'],
    tag: 'Approvals',
    operationId: 'getCampaign',
    summary: "A run's waiting per-use calls of one tool, with their records and the grants so far",
    parameters: campaign,
    responses: { '200': { description: 'The campaign.', body: CampaignView } },
  }),
  admin({
    method: 'post',
    path: '/v1/admin/runs/{run_id}/campaigns/{tool}/grant',
    services: ['authorization'],
    tag: 'Approvals',
    operationId: 'grantCampaign',
    summary: "Approve up to `count` of the run's calls of the tool at once",
    parameters: campaign,
    body: { description: 'How many, and why.', required: true, schema: CampaignGrantRequest },
    responses: {
      '200': { description: 'Granted: the campaign now.', body: CampaignView },
      '400': badRequest,
      '409': conflict('The vault is locked.'),
    },
  }),
  admin({
    method: 'get',
    path: '/v1/admin/vault',
    services: ['authorization'],
    tag: 'Vault',
    operationId: 'getVault',
    summary: 'Locked or not, by whom and why',
    responses: { '200': { description: 'The vault.', body: VaultView } },
  }),
  ...(['lock', 'unlock'] as const).map((change) =>
    admin({
      method: 'post',
      path: `/v1/admin/vault/${change}`,
      services: ['authorization'],
      tag: 'Vault',
      operationId: `${change}Vault`,
      summary: change === 'lock' ? 'Lock the vault: every new call is denied' : 'Unlock the vault',
      body: reason,
      responses: { '200': { description: '`changed: false` when it already was so.', body: VaultChange }, '400': badRequest },
    }),
  ),
  admin({
    method: 'post',
    path: '/v1/admin/executions/{execution_id}/revert',
    services: ['authorization'],
    tag: 'Executions (admin)',
    operationId: 'revertExecution',
    summary: '"Done, then undone" outside Onceport: the execution stops matching',
    parameters: [path('execution_id', 'The execution id.')],
    body: reason,
    responses: {
      '200': { description: 'Reverted (or already: who reverted it first).', body: RevertView },
      '400': badRequest,
      '404': problem('No such execution.'),
      '409': conflict('Not completed, failed or needs_review (`not_revertible`).'),
    },
  }),
  admin({
    method: 'get',
    path: '/v1/admin/quarantine',
    services: ['authorization'],
    tag: 'Quarantine',
    operationId: 'listQuarantine',
    summary: 'Events a projection or consumer skipped, in every service',
    parameters: [
      { name: 'status', in: 'query', description: 'Which entries (default: the open ones).', schema: z.string() },
      { name: 'subscriber', in: 'query', description: 'One subscriber only.', schema: z.string() },
      { name: 'limit', in: 'query', description: 'How many.', schema: z.string() },
    ],
    responses: { '200': { description: 'The entries.', body: QuarantineList }, '400': badRequest },
  }),
  admin({
    method: 'get',
    path: '/v1/admin/quarantine/{subscriber}/{event_id}',
    services: ['authorization'],
    tag: 'Quarantine',
    operationId: 'getQuarantineEntry',
    summary: 'One quarantine entry',
    parameters: quarantined,
    responses: { '200': { description: 'The entry.', body: QuarantineEntry }, '404': problem('Not in the quarantine.') },
  }),
  admin({
    method: 'post',
    path: '/v1/admin/quarantine/{subscriber}/{event_id}/retry',
    services: ['authorization'],
    tag: 'Quarantine',
    operationId: 'retryQuarantined',
    summary: 'Ask the owning subscriber to apply the event again on its next pass',
    parameters: quarantined,
    responses: {
      '200': { description: 'Requested.', body: QuarantineEntry },
      '404': problem('Not in the quarantine.'),
      '409': conflict('Not quarantined (`not_quarantined`).'),
    },
  }),
  admin({
    method: 'post',
    path: '/v1/admin/quarantine/{subscriber}/{event_id}/release',
    services: ['authorization'],
    tag: 'Quarantine',
    operationId: 'releaseQuarantined',
    summary: 'Release the event for good, with a reason',
    parameters: quarantined,
    body: reason,
    responses: {
      '200': { description: 'Released.', body: QuarantineEntry },
      '400': badRequest,
      '404': problem('Not in the quarantine.'),
      '409': conflict('Not quarantined (`not_quarantined`).'),
    },
  }),
  admin({
    method: 'get',
    path: '/v1/admin/reviews',
    services: ['reconciler'],
    tag: 'Review',
    operationId: 'listReviews',
    summary: 'Executions in needs_review, with their record and last probe',
    responses: { '200': { description: 'The review queue.', body: ReviewList } },
  }),
  admin({
    method: 'post',
    path: '/v1/admin/executions/{id}/resolve',
    services: ['reconciler'],
    tag: 'Review',
    operationId: 'resolveReview',
    summary: 'Settle an execution in review: applied or not applied, with a reason',
    parameters: [path('id', 'The execution id.')],
    body: { description: 'The verdict.', required: true, schema: ResolveRequest },
    responses: {
      '200': { description: 'Resolved.', body: Resolved },
      '400': badRequest,
      '404': problem('No such execution.'),
      '409': conflict('Not in review (`not_in_review`).'),
      '413': problem('Body over 16 KiB.'),
    },
  }),
];
