import type { Formats } from './format';
import { tryFormatMessage, type MessageValues } from './messages';

/**
 * What the app says for a refusal: its own text for the error code
 * (`common.error.<CODE>`, config/i18n/app/common.<lang>.json), its
 * placeholders filled from the error's details, in the user's language — the
 * server's message only for a code the app has no text for. Used by every
 * ApiError (src/app/api/client.ts, through setErrorLocalizer) and by the
 * offline queue's stored refusals, so no page shows English server text in
 * German.
 *
 * The values a text may use: every detail that is a string or a number
 * (`{state}`, `{action}`, `{feature}`, `{maxClients}`…), `{message}` (the
 * server's own), and for NOT_QUALIFIED `{skills}` ("Pumpenwartung (Stufe 2)
 * und Schweißen (Stufe 1)") and `{count}` (how many skills).
 */

export interface Refusal {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export type TextLookup = (key: string, values?: MessageValues) => string;

export interface ErrorTextContext {
  language: string;
  texts: Record<string, string>;
  t: TextLookup;
  format: Formats;
}

/** The app's text of a refusal, or the server's message when the app has none for its code. */
export function errorText({ language, texts, t, format }: ErrorTextContext, refusal: Refusal): string {
  const hasText = (key: string) => key in texts;
  const values = errorValues(t, hasText, format, refusal);
  for (const key of [`common.error.${refusal.code}`, `common.error.${refusal.code}.general`]) {
    const text = texts[key];
    const formatted = text === undefined ? null : tryFormatMessage(text, language, values);
    if (formatted !== null) return formatted;
  }
  return refusal.message;
}

function errorValues(t: TextLookup, hasText: (key: string) => boolean, format: Formats, refusal: Refusal): MessageValues {
  const values: MessageValues = { message: refusal.message };
  for (const [name, value] of Object.entries(refusal.details ?? {}))
    if (typeof value === 'string' || typeof value === 'number') values[name] = value;
  // a job's state and the action refused, as the app names them (INVALID_TRANSITION: "complete", "OPEN")
  if (typeof values.state === 'string' && hasText(`operator.state.${values.state}`)) values.state = t(`operator.state.${values.state}`);
  if (typeof values.action === 'string' && hasText(`common.action.${values.action}`)) values.action = t(`common.action.${values.action}`);
  const skills = refusal.details?.skills;
  if (Array.isArray(skills)) {
    const names = skills
      .filter((s): s is { skill: string; requiredLevel?: number } => !!s && typeof (s as { skill?: unknown }).skill === 'string')
      .map((s) => (typeof s.requiredLevel === 'number' ? t('common.skillAtLevel', { skill: s.skill, level: s.requiredLevel }) : s.skill));
    values.skills = format.list(names);
    values.count = names.length;
  }
  return values;
}
