import { ApiError, type Page } from './api';
import { h, replace, uniqueId } from './dom';

/**
 * The building blocks of every page: forms that show the server's field errors
 * beside their fields, paginated tables over the API's cursor, confirmations
 * for destructive actions, status messages announced to screen readers.
 */

export interface FieldSpec {
  /** the body path the server reports errors under, without `body.` (e.g. `owner.email`) */
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'textarea' | 'select' | 'checkbox' | 'checkboxes' | 'file' | 'datetime-local';
  autocomplete?: string;
  required?: boolean;
  value?: string | number | boolean | string[] | null;
  options?: readonly (string | { value: string; label: string })[];
  hint?: string;
  min?: number;
  accept?: string;
}

/** What a form read: text, a number (undefined when empty), a checkbox, the checked values of a group, a file. */
export type FormValue = string | number | boolean | string[] | File | null | undefined;
export type FormValues = Record<string, FormValue>;

/** A text or number field's value as text ('' when empty). */
export const textOf = (value: FormValue): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

export interface FormSpec {
  fields: FieldSpec[];
  submit: string;
  /** throws ApiError to show its field errors; resolves with an optional success message */
  onSubmit(values: FormValues, form: HTMLFormElement): Promise<string | void>;
  /** accessible name of the form */
  label?: string;
}

export function form(spec: FormSpec): HTMLFormElement {
  const status = h('p.form-status', { role: 'status' });
  const errors = new Map<string, HTMLElement>();
  const controls = new Map<string, HTMLElement>();
  const element = h('form', { novalidate: true, 'aria-label': spec.label });
  for (const field of spec.fields) {
    const id = uniqueId(`f-${field.name.replace(/\W/g, '-')}`);
    const errorId = `${id}-error`;
    const hintId = field.hint ? `${id}-hint` : undefined;
    const error = h('span.field-error', { id: errorId, hidden: true });
    errors.set(field.name, error);
    const described = [hintId, errorId].filter(Boolean).join(' ');
    const common = { id, name: field.name, required: field.required, 'aria-describedby': described, autocomplete: field.autocomplete };
    let control: HTMLElement;
    let row: HTMLElement;
    const hint = field.hint ? h('span.hint', { id: hintId }, field.hint) : null;
    if (field.type === 'checkbox') {
      control = h('input', { ...common, type: 'checkbox', checked: Boolean(field.value) });
      row = h('div.field.checkbox', {}, control, h('label', { for: id }, field.label), hint, error);
    } else if (field.type === 'checkboxes') {
      const selected = new Set((field.value as string[] | undefined) ?? []);
      control = h(
        'fieldset.choices',
        { id, 'aria-describedby': described },
        h('legend', {}, field.label),
        (field.options ?? []).map((option) => {
          const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
          const optionId = uniqueId(id);
          return h(
            'span.choice',
            {},
            h('input', { type: 'checkbox', id: optionId, name: field.name, value, checked: selected.has(value) }),
            h('label', { for: optionId }, label),
          );
        }),
      );
      row = h('div.field', {}, control, hint, error);
    } else {
      if (field.type === 'textarea') control = h('textarea', { ...common, rows: 6, value: field.value ?? '' });
      else if (field.type === 'select') {
        control = h(
          'select',
          common,
          (field.options ?? []).map((option) => {
            const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
            return h('option', { value, selected: value === field.value }, label);
          }),
        );
      } else
        control = h('input', { ...common, type: field.type ?? 'text', value: field.value ?? '', min: field.min, accept: field.accept });
      row = h(
        'div.field',
        {},
        h('label', { for: id }, field.label, field.required ? h('span.required', { 'aria-hidden': 'true' }, ' *') : null),
        control,
        hint,
        error,
      );
    }
    controls.set(field.name, control);
    element.append(row);
  }
  const button = h('button.primary', { type: 'submit' }, spec.submit);
  element.append(h('div.actions', {}, button), status);

  element.addEventListener(
    'submit',
    (event) =>
      void (async () => {
        event.preventDefault();
        for (const [name, error] of errors) {
          error.hidden = true;
          error.textContent = '';
          controls.get(name)?.removeAttribute('aria-invalid');
        }
        status.textContent = '';
        status.className = 'form-status';
        button.disabled = true;
        element.setAttribute('aria-busy', 'true');
        try {
          const message = await spec.onSubmit(readValues(element, spec.fields), element);
          if (message) {
            status.textContent = message;
            status.classList.add('ok');
          }
        } catch (error) {
          showErrors(error, errors, controls, status);
        } finally {
          button.disabled = false;
          element.removeAttribute('aria-busy');
        }
      })(),
  );
  return element;
}

function readValues(element: HTMLFormElement, fields: FieldSpec[]): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    if (field.type === 'checkboxes') {
      values[field.name] = [...element.querySelectorAll<HTMLInputElement>(`input[name="${field.name}"]:checked`)].map(
        (input) => input.value,
      );
      continue;
    }
    const control = element.elements.namedItem(field.name) as HTMLInputElement | null;
    if (!control) continue;
    if (field.type === 'checkbox') values[field.name] = control.checked;
    else if (field.type === 'file') values[field.name] = control.files?.[0] ?? null;
    else if (field.type === 'number') values[field.name] = control.value === '' ? undefined : Number(control.value);
    else values[field.name] = control.value;
  }
  return values;
}

/** Field errors beside their fields (the first one focused); anything else in the form's status line. */
function showErrors(error: unknown, errors: Map<string, HTMLElement>, controls: Map<string, HTMLElement>, status: HTMLElement): void {
  const unplaced: string[] = [];
  let first: HTMLElement | undefined;
  if (error instanceof ApiError && error.fields.length > 0) {
    for (const problem of error.fields) {
      const name = problem.path.replace(/^(body|query)\./, '');
      // an array element's error (roles.0) belongs to the array's field
      const key = errors.has(name) ? name : [...errors.keys()].find((k) => name.startsWith(`${k}.`));
      const target = key ? errors.get(key) : undefined;
      if (!target || !key) {
        unplaced.push(`${name}: ${problem.message}`);
        continue;
      }
      target.hidden = false;
      target.textContent = target.textContent ? `${target.textContent}; ${problem.message}` : problem.message;
      const control = controls.get(key);
      control?.setAttribute('aria-invalid', 'true');
      first ??= control;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  status.textContent = unplaced.length
    ? `${message}: ${unplaced.join(', ')}`
    : error instanceof ApiError && error.fields.length
      ? 'Please correct the marked fields.'
      : message;
  status.classList.add('error');
  (first ?? status).focus?.();
}

/** A message in the page's live region. */
export function notice(text: string, kind: 'ok' | 'error' = 'ok'): void {
  const region = document.getElementById('notices');
  if (!region) return;
  replace(region, h(`p.notice.${kind}`, {}, text));
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs an action from a button: disabled while it runs, the outcome announced. */
export async function run(button: HTMLButtonElement | null, action: () => Promise<string | void>): Promise<void> {
  if (button) button.disabled = true;
  try {
    const message = await action();
    if (message) notice(message);
  } catch (error) {
    notice(errorText(error), 'error');
  } finally {
    if (button) button.disabled = false;
  }
}

/**
 * Asks before a destructive action, in a modal dialog (keyboard: Esc cancels,
 * focus starts in it). With `typed`, the person must type that text first.
 */
export function confirmAction(options: { title: string; message: string; confirm: string; typed?: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const inputId = uniqueId('confirm');
    const input = options.typed ? h('input', { id: inputId, type: 'text', autocomplete: 'off' }) : null;
    const ok = h('button.danger', { type: 'submit', disabled: Boolean(options.typed) }, options.confirm);
    const titleId = uniqueId('dialog-title');
    const dialog = h(
      'dialog',
      { 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, options.title),
        h('p', {}, options.message),
        input ? [h('label', { for: inputId }, `Type "${options.typed}" to confirm`), input] : null,
        h('div.actions', {}, h('button', { type: 'button', onclick: () => dialog.close('cancel') }, 'Cancel'), ok),
      ),
    );
    input?.addEventListener('input', () => (ok.disabled = input.value !== options.typed));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue !== 'cancel' && dialog.returnValue !== '' ? true : false);
      dialog.remove();
    });
    ok.value = 'confirm';
    document.body.append(dialog);
    dialog.showModal();
    (input ?? ok).focus();
  });
}

export interface Column<T> {
  label: string;
  cell(item: T): Node | string | number | null;
}

/**
 * A table over a paginated list route: the API's cursor drives "Next", a stack
 * of earlier cursors drives "Previous"; `search` adds a search box.
 */
export function pagedTable<T>(options: {
  caption: string;
  columns: Column<T>[];
  load(cursor: string | undefined, search: string): Promise<Page<T>>;
  search?: string;
}): { element: HTMLElement; reload(): Promise<void> } {
  const cursors: (string | undefined)[] = [undefined];
  let next: string | null = null;
  let search = '';
  const body = h('tbody', { role: 'rowgroup' });
  const info = h('span.page-info', { 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', disabled: true }, 'Previous');
  const nextButton = h('button', { type: 'button', disabled: true }, 'Next');
  // explicit roles: at phone width the rows are stacked cards (CSS display: block), which would drop the table's
  // semantics; each cell then shows its column's name from data-label (CSS, with an empty alternative text: screen
  // readers have the header, and the cell's name and text stay its value)
  const table = h(
    'table.cards',
    { role: 'table' },
    h('caption', {}, options.caption),
    h(
      'thead',
      { role: 'rowgroup' },
      h(
        'tr',
        { role: 'row' },
        options.columns.map((column) => h('th', { scope: 'col', role: 'columnheader' }, column.label)),
      ),
    ),
    body,
  );
  async function show(): Promise<void> {
    body.setAttribute('aria-busy', 'true');
    try {
      const page = await options.load(cursors[cursors.length - 1], search);
      next = page.nextCursor;
      replace(
        body,
        page.items.length
          ? page.items.map((item) =>
              h(
                'tr',
                { role: 'row' },
                options.columns.map((column) => h('td', { role: 'cell', 'data-label': column.label }, column.cell(item))),
              ),
            )
          : h('tr', { role: 'row' }, h('td', { role: 'cell', colspan: options.columns.length }, 'Nothing to show.')),
      );
      info.textContent = `Page ${cursors.length}`;
    } catch (error) {
      replace(body, h('tr', { role: 'row' }, h('td.error', { role: 'cell', colspan: options.columns.length }, errorText(error))));
    } finally {
      body.removeAttribute('aria-busy');
      previous.disabled = cursors.length <= 1;
      nextButton.disabled = !next;
    }
  }
  previous.addEventListener('click', () => {
    cursors.pop();
    void show();
  });
  nextButton.addEventListener('click', () => {
    if (!next) return;
    cursors.push(next);
    void show();
  });
  let searchBox: HTMLElement | null = null;
  if (options.search) {
    const id = uniqueId('search');
    const input = h('input', { id, type: 'search', name: 'search', autocomplete: 'off' });
    searchBox = h(
      'form.search',
      {
        role: 'search',
        onsubmit: (event: Event) => {
          event.preventDefault();
          search = input.value.trim();
          cursors.splice(1);
          void show();
        },
      },
      h('label', { for: id }, options.search),
      input,
      h('button', { type: 'submit' }, 'Search'),
    );
  }
  const element = h('div.paged', {}, searchBox, h('div.table-wrap', {}, table), h('div.pager', {}, previous, info, nextButton));
  void show();
  return { element, reload: show };
}

/** A definition list of label → value. */
export function facts(entries: [string, Node | string | number | null | undefined][]): HTMLElement {
  return h(
    'dl.facts',
    {},
    entries.map(([label, value]) => [h('dt', {}, label), h('dd', {}, value ?? '—')]),
  );
}

export function section(title: string, ...children: (Node | null)[]): HTMLElement {
  const id = uniqueId('section');
  return h('section.card', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/** A labelled progress bar for a long action (backup, export): `set` moves it, the text says where it is. */
export function progress(label: string): { element: HTMLElement; set(percent: number | null, text: string): void } {
  const id = uniqueId('progress');
  const bar = h('progress', { id, max: 100 });
  const text = h('span.progress-text', { 'aria-live': 'polite' });
  const element = h('div.progress', { hidden: true }, h('label', { for: id }, label), bar, text);
  return {
    element,
    set(percent, message) {
      element.hidden = false;
      // no value: an indeterminate bar (the total is not known yet)
      if (percent === null) bar.removeAttribute('value');
      else bar.value = percent;
      text.textContent = message;
    },
  };
}
