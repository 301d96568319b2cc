import type {
  ComponentChildren,
  InputHTMLAttributes,
  LooseInputHTMLAttributes,
  LooseSelectHTMLAttributes,
  SelectHTMLAttributes,
  TextareaHTMLAttributes,
} from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { numberOrNull } from '../format';
import { useI18n } from '../i18n';

/**
 * Form fields: a visible label tied to its input, the hint and the error
 * announced with it (aria-describedby), aria-invalid on error, 44 px tall.
 */
interface FieldFrameProps {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | null;
  required?: boolean;
  children: ComponentChildren;
  class?: string;
}

function FieldFrame({ id, label, hint, error, required, children, class: extra }: FieldFrameProps) {
  return (
    <div class={['field', error ? 'field-invalid' : '', extra ?? ''].filter(Boolean).join(' ')}>
      <label for={id}>
        {label}
        {required && (
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {children}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

type InputAttributes = Omit<LooseInputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput' | 'value' | 'id' | 'type'>;

export interface TextFieldProps extends InputAttributes {
  label: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  hint?: ComponentChildren;
  error?: string | null;
  id?: string;
  type?: 'text' | 'email' | 'password' | 'search' | 'tel' | 'url' | 'date' | 'datetime-local' | 'time';
  multiline?: boolean;
  rows?: number;
}

export function TextField({
  label,
  value,
  onValue,
  hint,
  error,
  id,
  type = 'text',
  required,
  multiline,
  rows = 4,
  class: extra,
  ...rest
}: TextFieldProps) {
  const generated = useId();
  const fieldId = id ?? `f${generated}`;
  const common = {
    id: fieldId,
    name: rest.name ?? fieldId,
    required,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy(fieldId, hint, error),
  };
  return (
    <FieldFrame id={fieldId} label={label} hint={hint} error={error} required={required as boolean} class={extra as string}>
      {multiline ? (
        <textarea
          {...(rest as TextareaHTMLAttributes<HTMLTextAreaElement>)}
          {...common}
          rows={rows}
          value={value}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
      ) : (
        // the input's type is one of several: its attributes as the union of input kinds preact's types describe
        <input
          {...({
            ...rest,
            ...common,
            type,
            value,
            onInput: (e: Event) => onValue((e.currentTarget as HTMLInputElement).value),
          } as InputHTMLAttributes<HTMLInputElement>)}
        />
      )}
    </FieldFrame>
  );
}

type SecretFieldProps = Omit<TextFieldProps, 'type' | 'autocomplete' | 'autoComplete' | 'inputMode' | 'required' | 'multiline'>;

/** The signed-in person's current password (sign-in, two-factor setup, an e-signature): required, for the password manager. */
export function PasswordField(props: SecretFieldProps) {
  return <TextField {...props} type="password" autocomplete="current-password" required />;
}

/** A current two-factor code from an authenticator app: required, digits, offered by the device's one-time-code autofill. */
export function CodeField(props: SecretFieldProps) {
  return <TextField {...props} autocomplete="one-time-code" inputMode="numeric" required />;
}

export interface NumberFieldProps extends Omit<InputAttributes, 'min' | 'max'> {
  label: ComponentChildren;
  /** the text as typed ('' when empty): a half-typed "1." stays as it is */
  value: string;
  onValue: (value: string) => void;
  unit?: string;
  min?: number | null;
  max?: number | null;
  hint?: ComponentChildren;
  error?: string | null;
  /** shown (role=status) when the value is outside min/max: accepted, but flagged */
  outOfLimitsText?: string;
  id?: string;
}

/** A number with its unit and limits; a value outside them is flagged at once (not refused: the server flags it too). */
export function NumberField({
  label,
  value,
  onValue,
  unit,
  min,
  max,
  hint,
  error,
  outOfLimitsText,
  id,
  required,
  class: extra,
  ...rest
}: NumberFieldProps) {
  const generated = useId();
  const fieldId = id ?? `f${generated}`;
  const { language } = useI18n();
  // as typed, in the user's language ("2,5" is 2.5 in German, src/app/format.ts)
  const number = numberOrNull(value, language);
  const outside = number !== null && ((min != null && number < min) || (max != null && number > max));
  const statusId = `${fieldId}-limits`;
  return (
    <FieldFrame id={fieldId} label={label} hint={hint} error={error} required={required as boolean} class={extra as string}>
      <div class="number-input">
        <input
          {...(rest as object)}
          id={fieldId}
          name={rest.name ?? fieldId}
          type="text"
          inputMode="decimal"
          required={required}
          value={value}
          aria-invalid={error || outside ? 'true' : undefined}
          aria-describedby={[describedBy(fieldId, hint, error), outside ? statusId : ''].filter(Boolean).join(' ') || undefined}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
        {unit && <span class="unit">{unit}</span>}
      </div>
      <p class="limits-status" id={statusId} role="status">
        {outside ? outOfLimitsText : ''}
      </p>
    </FieldFrame>
  );
}

export interface NumberInputProps extends Omit<InputAttributes, 'value' | 'type' | 'onInput'> {
  /** the number held ('' in the input when null) */
  value: number | null | undefined;
  /** called with each number the user types (null: emptied); text that is not a number calls nothing and says why */
  onNumber: (value: number | null) => void;
  id: string;
}

/**
 * A bare number input for a form with its own label (the editor's limits):
 * the user types in their language ("2,5"), the form gets a JS number. What
 * is typed stays as typed ("2," half-way); text that is no number keeps the
 * last number and says why below the input (src/app/format.ts parseNumber).
 */
export function NumberInput({ value, onNumber, id, ...rest }: NumberInputProps) {
  const { format, readNumber } = useI18n();
  const [text, setText] = useState(() => format.numberInput(value));
  const [problem, setProblem] = useState<string | null>(null);
  // a value changed elsewhere (undo, the server's copy) replaces the text; the user's own typing does not
  useEffect(() => {
    const read = readNumber(text);
    const shown = 'value' in read ? read.value : null;
    if ((value ?? null) !== shown) {
      setText(format.numberInput(value));
      setProblem(null);
    }
  }, [value]);
  const problemId = `${id}-number`;
  const describedBy = [rest['aria-describedby'] as string | undefined, problem ? problemId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <input
        {...(rest as object)}
        id={id}
        type="text"
        inputMode="decimal"
        value={text}
        aria-invalid={problem ? 'true' : rest['aria-invalid']}
        aria-describedby={describedBy}
        onInput={(e) => {
          const typed = e.currentTarget.value;
          setText(typed);
          if (typed.trim() === '') {
            setProblem(null);
            onNumber(null);
            return;
          }
          const read = readNumber(typed);
          if ('value' in read) {
            setProblem(null);
            onNumber(read.value);
          } else setProblem(read.error);
        }}
      />
      {problem && (
        <p class="field-error" id={problemId}>
          {problem}
        </p>
      )}
    </>
  );
}

export interface SelectOption {
  value: string;
  label: string;
}

export interface SelectProps extends Omit<LooseSelectHTMLAttributes<HTMLSelectElement>, 'label' | 'value' | 'id'> {
  label: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  options: SelectOption[];
  /** a first, empty choice ("— choose —") */
  placeholder?: string;
  hint?: ComponentChildren;
  error?: string | null;
  id?: string;
}

export function Select({ label, value, onValue, options, placeholder, hint, error, id, required, class: extra, ...rest }: SelectProps) {
  const generated = useId();
  const fieldId = id ?? `f${generated}`;
  return (
    <FieldFrame id={fieldId} label={label} hint={hint} error={error} required={required as boolean} class={extra as string}>
      <select
        {...(rest as SelectHTMLAttributes<HTMLSelectElement>)}
        id={fieldId}
        required={required}
        value={value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(fieldId, hint, error)}
        onChange={(e) => onValue(e.currentTarget.value)}
      >
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

export interface CheckboxProps extends Omit<LooseInputHTMLAttributes<HTMLInputElement>, 'label' | 'checked' | 'id' | 'type' | 'class'> {
  /** extra class names (a plain string: they are joined into the element's class) */
  class?: string;
  label: ComponentChildren;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  hint?: ComponentChildren;
  id?: string;
}

/** A checkbox whose whole row (44 px) is the target. */
export function Checkbox({ label, checked, onChecked, hint, id, class: extra, ...rest }: CheckboxProps) {
  const generated = useId();
  const fieldId = id ?? `f${generated}`;
  return (
    <div class={['checkbox', extra ?? ''].filter(Boolean).join(' ')}>
      <input
        {...(rest as object)}
        id={fieldId}
        type="checkbox"
        checked={checked}
        aria-describedby={hint ? `${fieldId}-hint` : undefined}
        onChange={(e) => onChecked(e.currentTarget.checked)}
      />
      <label for={fieldId}>{label}</label>
      {hint && (
        <p class="hint" id={`${fieldId}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
