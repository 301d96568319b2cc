import type { Deps } from '#deps';
import type { FaultRow, HandOffRow, JobRow, TemplateVersionRow } from '#db/schema';
import type { EventTx } from '#events/emit';
import { publicBaseUrl } from '#mail/templates';
import { SECURITY_ADMIN } from '#policies/roles';
import {
  getNotificationPreferences,
  loadNotifiableUsers,
  putNotificationPreferences,
  type NotifiableUser,
} from '#repos/notification-preferences';
import { isTemplateVisible, templateVisibilityOf } from '#repos/templates';
import { listActiveUserIdsWithAnyRole } from '#repos/users';
import { withTransaction } from '#db/transaction';
import type { TenantScope } from '#db/tenant';
import type { UserActor } from './actor';
import { DEFAULT_LANGUAGE, fillPlaceholders, namespaceTexts, requireLanguage } from './i18n';
import { queueMail } from './mail';
import { queuePush } from './push';
import { NOTIFICATION_KINDS, type NotificationKind } from '#domain/notification-kinds';
import { PERMISSIONS } from '#policies/permissions';

/**
 * The one notifier: when work waits for someone, the services call `notify`
 * inside the transaction of the change (beside its webhook event). It works
 * out who is told (never the person who acted), drops whoever turned the kind
 * off, writes each message in the recipient's language and queues it — a mail
 * row in the outbox (when a mail server is configured) and a push row per
 * subscribed browser. Both are rows of
 * the change's transaction, delivered after commit by the mailer and the push
 * sender: a change that rolled back tells no one, and a committed one is not
 * lost to a crash or an unreachable mail server.
 */

export { NOTIFICATION_KINDS, type NotificationKind } from '#domain/notification-kinds';

/** Faults of these severities are notified; lower ones wait in the fault list. */
export const NOTIFIED_FAULT_SEVERITIES: readonly string[] = ['HIGH', 'CRITICAL'];

export type Notice =
  | {
      kind: 'version_submitted' | 'version_approved' | 'version_rejected';
      version: TemplateVersionRow;
      template: { id: number; title: string };
    }
  | { kind: 'job_assigned'; job: JobRow; userIds: readonly number[] }
  | { kind: 'hand_off'; job: JobRow; handOff: HandOffRow }
  | { kind: 'fault_raised'; fault: FaultRow; job: JobRow | null };

/** The message of one notice in one language. */
interface Rendered {
  title: string;
  /** the push body: the facts in a line */
  summary: string;
  /** the mail body */
  text: string;
  data: Record<string, number | string>;
}

export async function notify(tx: EventTx, actor: UserActor, notice: Notice): Promise<void> {
  const { deps, trx, afterCommit } = tx;
  if (notice.kind === 'fault_raised' && !NOTIFIED_FAULT_SEVERITIES.includes(notice.fault.severity)) return;
  const candidates = (await recipientIds(tx, actor, notice)).filter((id) => id !== actor.userId);
  let recipients = (await loadNotifiableUsers(trx, actor.scope, [...new Set(candidates)])).filter(
    (u) => !u.preferences.disabledKinds.includes(notice.kind),
  );
  if ('template' in notice) recipients = await seeingTemplate(tx, actor, recipients, notice.template.id);
  if (recipients.length === 0) return;

  const byLanguage = new Map<string, NotifiableUser[]>();
  for (const user of recipients) {
    const language = user.preferences.language ?? DEFAULT_LANGUAGE;
    byLanguage.set(language, [...(byLanguage.get(language) ?? []), user]);
  }
  for (const [language, users] of byLanguage) {
    const texts = await namespaceTexts(trx, language, actor.scope.clientId, 'notifications');
    const message = render(deps, texts, actor, notice);
    // Without a mail server a notification mail would only become a file in <data-dir>/outbox that no one
    // reads (the stored mode is for handing out invitation links): the push still goes.
    for (const user of deps.config.smtpUrl === '' ? [] : users) {
      await queueMail(deps, trx, afterCommit, {
        kind: notice.kind,
        subject: message.title,
        text: message.text,
        to: user.email,
        clientId: actor.scope.clientId,
        userId: user.id,
      });
    }
    await queuePush(
      deps,
      trx,
      afterCommit,
      actor.scope,
      users.map((u) => u.id),
      { kind: notice.kind, title: message.title, body: message.summary, data: message.data },
    );
  }
}

/**
 * A notice no one's action caused (the daily round of skill expiries,
 * services/qualifications.ts): the same preferences, languages and queues as
 * `notify`, one message per recipient written by `message` with the
 * recipient's texts.
 */
export async function notifyUsers(
  tx: EventTx,
  scope: TenantScope,
  userIds: readonly number[],
  kind: NotificationKind,
  message: (
    t: (key: string, values?: Record<string, string | number>) => string,
    userId: number,
  ) => { title: string; body: string; summary: string; data: Record<string, number | string>; page: string | null },
): Promise<void> {
  const { deps, trx, afterCommit } = tx;
  const recipients = (await loadNotifiableUsers(trx, scope, [...new Set(userIds)])).filter(
    (u) => !u.preferences.disabledKinds.includes(kind),
  );
  for (const user of recipients) {
    const texts = await namespaceTexts(trx, user.preferences.language ?? DEFAULT_LANGUAGE, scope.clientId, 'notifications');
    const t = (key: string, values: Record<string, string | number> = {}) => fillPlaceholders(texts[key] ?? key, values);
    const m = message(t, user.id);
    const summary = m.summary.length > SUMMARY_MAX ? `${m.summary.slice(0, SUMMARY_MAX - 1)}…` : m.summary;
    if (deps.config.smtpUrl !== '') {
      const text = `${t('greeting')}\n\n${m.body}\n\n${t('open', { url: publicBaseUrl(deps) + (m.page ?? '') })}\n\n-- \n${t('footer')}\n`;
      await queueMail(deps, trx, afterCommit, { kind, subject: m.title, text, to: user.email, clientId: scope.clientId, userId: user.id });
    }
    await queuePush(deps, trx, afterCommit, scope, [user.id], {
      kind,
      title: m.title,
      body: summary,
      data: { ...m.data, ...(m.page && { url: m.page }) },
    });
  }
}

/**
 * Who hears of what, before the actor and the opted-out are dropped:
 * - version submitted: the client's active users who may approve;
 * - version approved: those who may publish;
 * - version rejected: its authors (who created it, who last edited it);
 * - job assigned: the assignees and step owners named;
 * - hand-off offered: the receiver;
 * - fault raised (HIGH, CRITICAL): the job's supervisors — who created the job
 *   and the client's Security Administrators (without a job: those).
 */
async function recipientIds(tx: EventTx, actor: UserActor, notice: Notice): Promise<number[]> {
  const { trx } = tx;
  switch (notice.kind) {
    case 'version_submitted':
      return listActiveUserIdsWithAnyRole(trx, actor.scope, PERMISSIONS.approveVersion);
    case 'version_approved':
      return listActiveUserIdsWithAnyRole(trx, actor.scope, PERMISSIONS.publishVersion);
    case 'version_rejected':
      return [notice.version.created_by, notice.version.updated_by];
    case 'job_assigned':
      return [...notice.userIds];
    case 'hand_off':
      return [notice.handOff.to_user_id];
    case 'fault_raised':
      return [...(notice.job ? [notice.job.created_by] : []), ...(await listActiveUserIdsWithAnyRole(trx, actor.scope, [SECURITY_ADMIN]))];
  }
}

/** A version's title is news only to who may see its template (organizations restrict it). */
async function seeingTemplate(tx: EventTx, actor: UserActor, users: NotifiableUser[], templateId: number): Promise<NotifiableUser[]> {
  const seeing: NotifiableUser[] = [];
  for (const user of users) {
    if (await isTemplateVisible(tx.trx, actor.scope, templateId, await templateVisibilityOf(tx.trx, actor.scope, user))) seeing.push(user);
  }
  return seeing;
}

function actorName(actor: UserActor): string {
  const name = `${actor.user.first_name} ${actor.user.last_name}`.trim();
  return name || actor.email;
}

const SUMMARY_MAX = 240;

function render(deps: Deps, texts: Record<string, string>, actor: UserActor, notice: Notice): Rendered {
  const t = (key: string, values: Record<string, string | number> = {}) =>
    fillPlaceholders(texts[key] ?? key, { actor: actorName(actor), ...values });
  let title: string;
  let body: string;
  let summary: string;
  let data: Record<string, number | string>;
  /** where in the floor app (/app/…) the work waits, when it has a page there: the mail's link and the push's `data.url` */
  let page: string | null = null;
  switch (notice.kind) {
    case 'version_submitted':
    case 'version_approved':
    case 'version_rejected': {
      const { version, template } = notice;
      const reason = version.reject_reason ?? '';
      const values = { template: template.title, version: version.number, reason };
      title = t(`${notice.kind}.title`, values);
      body = t(`${notice.kind}.text`, values);
      const label = `${template.title} v${version.number}`;
      summary = notice.kind === 'version_rejected' && reason ? `${label}: ${reason}` : label;
      // the reviewers' page of the version; a rejected one goes back to its template in the authors' library
      page = notice.kind === 'version_rejected' ? `/app/templates/${template.id}` : `/app/reviews/${version.id}`;
      data = { templateId: template.id, versionId: version.id, url: page };
      break;
    }
    case 'job_assigned':
      title = t('job_assigned.title');
      body = t('job_assigned.text', { job: notice.job.title, priority: notice.job.priority });
      summary = notice.job.title;
      // the assignee runs it: the operator's page of the job
      page = `/app/jobs/${notice.job.id}`;
      data = { jobId: notice.job.id, url: page };
      break;
    case 'hand_off': {
      const { job, handOff } = notice;
      title = t('hand_off.title');
      body = t('hand_off.text', { job: job.title }) + (handOff.note ? `\n\n${t('hand_off.note', { note: handOff.note })}` : '');
      summary = handOff.note ? `${job.title}: ${handOff.note}` : job.title;
      page = `/app/jobs/${job.id}`;
      data = { jobId: job.id, handOffId: handOff.id, url: page };
      break;
    }
    case 'fault_raised': {
      const { fault, job } = notice;
      const values = { severity: fault.severity, description: fault.description, job: job?.title ?? '' };
      title = t('fault_raised.title', values);
      body = t(job ? 'fault_raised.text' : 'fault_raised.text_without_job', values);
      summary = job ? `${job.title}: ${fault.description}` : fault.description;
      // the job's creator and the Security Administrator read it, whatever their roles: the read-only record
      if (job) page = `/app/jobs/${job.id}/record`;
      data = { faultId: fault.id, ...(job && { jobId: job.id, url: page! }) };
      break;
    }
  }
  // a push message carries at most about 4 KB once encrypted: the line stays short (the mail has it whole)
  summary = summary.length > SUMMARY_MAX ? `${summary.slice(0, SUMMARY_MAX - 1)}…` : summary;
  const text = `${t('greeting')}\n\n${body}\n\n${t('open', { url: publicBaseUrl(deps) + (page ?? '') })}\n\n-- \n${t('footer')}\n`;
  return { title, summary, text, data };
}

// ── Preferences ─────────────────────────────────────────────────────────────

export interface NotificationPreferences {
  /** BCP 47 tag the messages are written in; null: the appliance's default (English) */
  language: string | null;
  /** every kind, true when on */
  kinds: Record<NotificationKind, boolean>;
}

function presentPreferences(stored: { language: string | null; disabledKinds: string[] }): NotificationPreferences {
  return {
    language: stored.language,
    kinds: Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, !stored.disabledKinds.includes(kind)])) as Record<
      NotificationKind,
      boolean
    >,
  };
}

export async function getPreferences(deps: Deps, actor: UserActor): Promise<NotificationPreferences> {
  return presentPreferences(await getNotificationPreferences(deps.db.kysely, actor.scope, actor.userId));
}

/** Omitted fields (and kinds) keep their values. */
export async function changePreferences(
  deps: Deps,
  actor: UserActor,
  input: { language?: string | null; kinds?: Partial<Record<NotificationKind, boolean>> },
): Promise<NotificationPreferences> {
  // REST's schema canonicalised it already; GraphQL passes the tag as typed
  const language = input.language == null ? input.language : requireLanguage(input.language, 'language');
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    const stored = await getNotificationPreferences(trx, actor.scope, actor.userId);
    const kinds = { ...presentPreferences(stored).kinds, ...input.kinds };
    const next = {
      language: language === undefined ? stored.language : language,
      disabledKinds: NOTIFICATION_KINDS.filter((kind) => !kinds[kind]),
    };
    await putNotificationPreferences(trx, actor.scope, actor.userId, next, now);
    return presentPreferences(next);
  });
}
