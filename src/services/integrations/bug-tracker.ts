import { z } from 'zod';
import type { Deps } from '#deps';
import { integrationNotConfigured, upstreamError } from '#errors';
import type { UserActor } from '../actor';
import { callUpstream, upstreamJson, upstreamUrl } from './upstream';

export interface VendorBugReport {
  title: string;
  description: string;
  appVersion?: string;
  device?: string;
  platform?: string;
  logs?: string;
}

/** What a tracker answers on creation (GitHub and Gitea agree on these fields). */
const CreatedIssue = z.object({ number: z.number().int(), html_url: z.string().optional() });

/** The tracker sees at most this much of the logs (issue bodies are limited, 64 KiB on GitHub). */
const LOGS_IN_ISSUE_CHARS = 32 * 1024;

/**
 * Files the report as an issue in the configured repository through the
 * code-hosting tracker's issues API (`POST {bugTrackerUrl}/repos/{owner}/{repo}/issues`,
 * as GitHub and Gitea serve it), authenticated with bugTrackerToken. The
 * caller is named by client and user id only (no e-mail address leaves).
 * @throws AppError INTEGRATION_NOT_CONFIGURED, UPSTREAM_ERROR (details.upstreamStatus)
 */
export async function forwardBugReport(
  deps: Deps,
  actor: UserActor,
  report: VendorBugReport,
): Promise<{ issueNumber: number; issueUrl: string | null }> {
  const { bugTrackerUrl, bugTrackerRepository, bugTrackerToken } = deps.config;
  if (!bugTrackerUrl || !bugTrackerRepository || !bugTrackerToken) {
    throw integrationNotConfigured('bug tracker', ['bugTrackerUrl', 'bugTrackerRepository', 'bugTrackerToken']);
  }
  const facts = [
    ['App version', report.appVersion],
    ['Device', report.device],
    ['Platform', report.platform],
    ['Reported by', `client ${actor.clientId}, user ${actor.userId}`],
  ].filter(([, value]) => value);
  const body = [
    report.description,
    '',
    ...facts.map(([name, value]) => `- **${name}:** ${value}`),
    ...(report.logs
      ? [
          '',
          '<details><summary>Logs</summary>',
          '',
          '```',
          report.logs.slice(-LOGS_IN_ISSUE_CHARS).replace(/```/g, "'''"),
          '```',
          '</details>',
        ]
      : []),
  ].join('\n');
  const response = await callUpstream(deps, 'bug tracker', {
    url: upstreamUrl(bugTrackerUrl, `/repos/${bugTrackerRepository}/issues`),
    method: 'POST',
    headers: {
      accept: 'application/vnd.github+json, application/json',
      authorization: `Bearer ${bugTrackerToken}`,
      'content-type': 'application/json',
      'user-agent': 'wip-bug-reports/1',
    },
    body: JSON.stringify({ title: report.title, body }),
    maxResponseBytes: 256 * 1024,
  });
  const parsed = CreatedIssue.safeParse(upstreamJson('bug tracker', response));
  if (!parsed.success) throw upstreamError('bug tracker', response.status, 'its answer names no issue number');
  return { issueNumber: parsed.data.number, issueUrl: parsed.data.html_url ?? null };
}
