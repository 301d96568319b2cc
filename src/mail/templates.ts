import os from 'node:os';
import type { Deps } from '#deps';

// Plain-text templates of the account mails. Links are built from publicUrl
// (WIP_PUBLIC_URL); the web app serves /auth/set-password/:token and
// /auth/reset-password/:token and posts to the matching API routes.

export interface MailContent {
  kind: string;
  subject: string;
  text: string;
}

/**
 * publicUrl, or else a guess at what users reach: the scheme and port the
 * daemon really serves (TLS, port 0), and this machine's name when it listens
 * on every interface (localhost would point at the reader's own device).
 */
export function publicBaseUrl(deps: Pick<Deps, 'config' | 'served'>): string {
  const { config, served } = deps;
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const scheme = served?.scheme ?? (config.tlsCert || config.tlsSelfSigned ? 'https' : 'http');
  const host = config.host === '0.0.0.0' || config.host === '::' ? os.hostname() : config.host;
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${served?.port ?? config.port}`;
}

function hours(ms: number): string {
  const h = Math.round(ms / 3_600_000);
  return h >= 1 ? `${h} hour${h === 1 ? '' : 's'}` : `${Math.round(ms / 60_000)} minutes`;
}

const footer = '\n\n-- \nThis message was sent by wip. If you did not expect it, you can ignore it or tell your administrator.\n';

export function invitationMail(
  deps: Pick<Deps, 'config' | 'served'>,
  input: { clientName: string; token: string; ttlMs: number },
): MailContent {
  const link = `${publicBaseUrl(deps)}/auth/set-password/${input.token}`;
  return {
    kind: 'invitation',
    subject: `You are invited to ${input.clientName} on wip`,
    text:
      `Hello,\n\nYou have been invited to join ${input.clientName}.\n\n` +
      `Choose your password here to activate your account:\n\n${link}\n\n` +
      `The link works once and expires in ${hours(input.ttlMs)}.` +
      footer,
  };
}

export function passwordResetMail(deps: Pick<Deps, 'config' | 'served'>, input: { token: string; ttlMs: number }): MailContent {
  const link = `${publicBaseUrl(deps)}/auth/reset-password/${input.token}`;
  return {
    kind: 'password_reset',
    subject: 'Reset your wip password',
    text:
      `Hello,\n\nSomeone (hopefully you) asked to reset the password of your account.\n\n` +
      `Choose a new password here:\n\n${link}\n\n` +
      `The link works once and expires in ${hours(input.ttlMs)}. Your current password keeps working until then.` +
      footer,
  };
}

export function passwordChangedMail(input: { when: string; ip: string | null; how: 'changed' | 'reset' }): MailContent {
  return {
    kind: 'password_changed',
    subject: 'Your wip password was changed',
    text:
      `Hello,\n\nThe password of your account was ${input.how} at ${input.when}` +
      `${input.ip ? ` from ${input.ip}` : ''}. Your other sessions were signed out.\n\n` +
      'If this was not you, reset your password at once and tell your administrator.' +
      footer,
  };
}

export function twoFactorResetMail(input: { when: string; byAdministrator: boolean }): MailContent {
  return {
    kind: 'two_factor_reset',
    subject: 'Two-factor authentication was reset on your wip account',
    text:
      `Hello,\n\nTwo-factor authentication of your account was reset at ${input.when}` +
      `${input.byAdministrator ? ' by a Security Administrator of your organisation' : ''}. ` +
      'Set it up again from your account settings.\n\n' +
      'If this was not you, reset your password at once and tell your administrator.' +
      footer,
  };
}

export function webhookDisabledMail(input: { url: string; failingSince: string; lastError: string }): MailContent {
  return {
    kind: 'webhook_disabled',
    subject: 'A wip webhook endpoint was disabled after failing for 5 days',
    text:
      `Hello,\n\nThe webhook endpoint ${input.url} has failed every delivery since ${input.failingSince} ` +
      `(last error: ${input.lastError}) and was disabled; its pending deliveries were given up.\n\n` +
      'Fix the receiver, then turn the endpoint on again (PUT /api/client/webhooks/:id with "active": true) ' +
      'and redeliver what it missed from its delivery log.' +
      footer,
  };
}
