import { useI18n, type I18n } from '../../i18n';
import { Checkbox, NumberField, Select, TextField } from '../../ui';
import { LAST_DAY, MAX_HOURS, MAX_INTERVAL, ruleOf, summaryOf, WEEKDAYS, type RecurrenceChoice, type RecurrenceKind } from './recurrence';

/** A weekday's name in the user's language, by its index from Monday (1 January 2024 was a Monday). */
function weekdayName(language: string, index: number, width: 'long' | 'short' = 'long'): string {
  return new Intl.DateTimeFormat(language, { weekday: width, timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + index)));
}

/** A saved rule in words ("Every week on Monday at 07:00"), or the RRULE as written when the builder cannot say it. */
export function recurrenceText({ t, language }: Pick<I18n, 't' | 'language'>, recurrence: string, startsAt: string): string {
  const summary = summaryOf(recurrence, startsAt);
  if (!summary) return t('supervisor.recurrence.asWritten', { rule: recurrence });
  const { kind, interval, time } = summary;
  const every = interval > 1 ? 'Every' : 'One';
  switch (kind) {
    case 'daily':
      return t(`supervisor.recurrence.daily${every}`, { n: interval, time });
    case 'weekly':
      return t(`supervisor.recurrence.weekly${every}`, {
        n: interval,
        time,
        days: summary.weekdays.map((day) => weekdayName(language, day)).join(', '),
      });
    case 'monthly':
      return t(`supervisor.recurrence.monthly${summary.monthDay === LAST_DAY ? 'Last' : ''}${every}`, {
        n: interval,
        time,
        day: summary.monthDay,
      });
    case 'hourly':
      return t(`supervisor.recurrence.hourly${every}`, { n: interval, time });
  }
}

export interface RecurrenceFieldsProps {
  choice: RecurrenceChoice;
  onChoice: (choice: RecurrenceChoice) => void;
  /** problems by field: the page's own (problemsOf) and the server's (recurrence, startsAt) */
  errors: Partial<Record<'startDate' | 'time' | 'interval' | 'weekdays' | 'rule' | 'recurrence' | 'startsAt', string>>;
}

/**
 * The recurrence builder: how often (every day, on weekdays, on a day of the month, every N hours, or an RRULE
 * written by hand), from which day, at what time. The RRULE itself is the pure module's (recurrence.ts).
 */
export function RecurrenceFields({ choice, onChoice, errors }: RecurrenceFieldsProps) {
  const { t, language } = useI18n();
  const set = (changes: Partial<RecurrenceChoice>) => onChoice({ ...choice, ...changes });
  const kinds: RecurrenceKind[] = ['daily', 'weekly', 'monthly', 'hourly', 'advanced'];
  const unit = { daily: 'days', weekly: 'weeks', monthly: 'months', hourly: 'hours', advanced: 'days' }[choice.kind];
  // the server's refusal of the rule is shown where the rule is chosen
  const ruleError = errors.recurrence ?? errors.rule;
  return (
    <>
      <Select
        label={t('supervisor.recurrence.kind')}
        value={choice.kind}
        onValue={(kind) =>
          // "advanced" starts from the rule built so far, to be refined by hand
          set({
            kind: kind as RecurrenceKind,
            interval: 1,
            rule: kind === 'advanced' && !choice.rule ? ruleOf(choice).recurrence : choice.rule,
          })
        }
        options={kinds.map((kind) => ({ value: kind, label: t(`supervisor.recurrence.kind.${kind}`) }))}
        error={choice.kind === 'advanced' ? undefined : ruleError}
      />
      {choice.kind !== 'advanced' && (
        <NumberField
          label={t(`supervisor.recurrence.every.${unit}`)}
          value={String(choice.interval || '')}
          onValue={(value) => set({ interval: Number(value.replace(',', '.')) })}
          min={1}
          max={choice.kind === 'hourly' ? MAX_HOURS : MAX_INTERVAL}
          hint={t(`supervisor.recurrence.everyHint.${unit}`)}
          error={errors.interval}
          required
        />
      )}
      {choice.kind === 'weekly' && (
        <fieldset class="weekdays" aria-describedby={errors.weekdays ? 'weekdays-error' : undefined}>
          <legend>{t('supervisor.recurrence.weekdays')}</legend>
          {WEEKDAYS.map((day, index) => (
            <Checkbox
              key={day}
              label={weekdayName(language, index)}
              checked={choice.weekdays.includes(day)}
              onChecked={(checked) => set({ weekdays: checked ? [...choice.weekdays, day] : choice.weekdays.filter((d) => d !== day) })}
            />
          ))}
          {errors.weekdays && (
            <p class="error" id="weekdays-error">
              {errors.weekdays}
            </p>
          )}
        </fieldset>
      )}
      {choice.kind === 'monthly' && (
        <Select
          label={t('supervisor.recurrence.monthDay')}
          value={String(choice.monthDay)}
          onValue={(day) => set({ monthDay: Number(day) })}
          options={[
            ...Array.from({ length: 28 }, (_, i) => ({
              value: String(i + 1),
              label: t('supervisor.recurrence.dayOption', { day: i + 1 }),
            })),
            { value: String(LAST_DAY), label: t('supervisor.recurrence.lastDay') },
          ]}
          hint={t('supervisor.recurrence.monthDayHint')}
        />
      )}
      {choice.kind === 'advanced' && (
        <TextField
          label={t('supervisor.recurrence.rule')}
          value={choice.rule}
          onValue={(rule) => set({ rule })}
          hint={t('supervisor.recurrence.ruleHint')}
          error={ruleError}
          spellcheck={false}
          autoComplete="off"
          required
        />
      )}
      <div class="schedule-start">
        <TextField
          label={t('supervisor.recurrence.startDate')}
          type="date"
          value={choice.startDate}
          onValue={(startDate) => set({ startDate })}
          error={errors.startDate ?? errors.startsAt}
          required
        />
        <TextField
          label={t(choice.kind === 'hourly' ? 'supervisor.recurrence.firstTime' : 'supervisor.recurrence.time')}
          type="time"
          value={choice.time}
          onValue={(time) => set({ time })}
          error={errors.time}
          required
        />
      </div>
    </>
  );
}
