import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { APP_WIDTHS, buildAppTeam, checkPage, openApp, startAppServer, type AppTeam, draftSaved, stepRegion } from '../helpers/app-browser';
import type { TestServer } from '../helpers/server';
import { gql } from '../helpers/graphql';
import { ok } from '../helpers/templates';

// The author's editor, through the pages only (Debian's Chromium,
// headless): a removed section, step or field comes back with "Undo" exactly
// as it was, and the server holds what the author last chose (the removal once
// the undo window has passed, the section after an undo); field keys follow
// their labels; the condition builder offers only the comparisons a field's
// type has; the preview computes a calculated field; the empty library says
// so and offers the first template; the conflict dialog knows the same author
// on another device; a long draft has an outline and folding sections. axe at
// 390, 820 and 1280 px, English and German; screenshots in
// test-output/app/author-*.png. What is stored is read through the API.

let browser: Browser;
let wip: TestServer;
let team: AppTeam;

const setup = suite('app author editing: set-up');
setup('a server, a client with its team; Chromium', async () => {
  ({ wip, team } = await startAppServer());
  browser = await launchChromium();
});
setup.run();

const CONTENT = `query ($id: ID!) { template(id: $id) { latestVersion { revision content { sections { sectionId title steps { stepId title fields { key label type required expression } } } } } } }`;
const stored = async (templateId: number) =>
  ok(await gql(wip, team.author.token, CONTENT, { id: `Template:${templateId}` })).template.latestVersion as {
    revision: number;
    content: {
      sections: {
        sectionId: string;
        title: string;
        steps: { stepId: string; title: string; fields: { key: string; label: string; type: string; expression: string | null }[] }[];
      }[];
    };
  };

/** A draft with `sections` sections of `steps` steps each, every step holding one number field; its id. */
async function draft(title: string, sections = 2, steps = 2): Promise<number> {
  const content = {
    sections: Array.from({ length: sections }, (_, s) => ({
      title: `Part ${String.fromCharCode(65 + s)}`,
      steps: Array.from({ length: steps }, (_, i) => ({
        title: `Task ${String.fromCharCode(65 + s)}${i + 1}`,
        body: 'Do it.',
        fields: [{ key: `reading_${s}_${i}`, label: `Reading ${String.fromCharCode(65 + s)}${i + 1}`, type: 'NUMBER', unit: 'bar' }],
      })),
    })),
  };
  return ok(
    await gql(
      wip,
      team.author.token,
      `mutation ($input: CreateTemplateInput!) { createTemplate(input: $input) { template { databaseId } } }`,
      {
        input: { title, content },
      },
    ),
  ).createTemplate.template.databaseId;
}

const saved = draftSaved;
/** The user's language is theirs, saved on the server: a page a German test left behind may open in German. */
async function english(page: Page): Promise<void> {
  await page.locator('label.language select').selectOption('en');
  await page.locator('html[lang="en"]').waitFor();
}
const toastWith = (page: Page, text: string | RegExp) => page.locator('.toast').filter({ hasText: text });
const ids = (content: Awaited<ReturnType<typeof stored>>['content']) =>
  content.sections.map((s) => [s.sectionId, s.title, s.steps.map((st) => [st.stepId, st.title, st.fields.map((f) => f.key)])]);

// ── undo ──────────────────────────────────────────────────────────────────

const undo = suite('app author editing: removing with undo');
let page: Page;
let templateId = 0;
undo.before(async () => {
  templateId = await draft('Undo drill');
  // the page's clock is Playwright's (it runs as usual until a test moves it): a toast's 10 s are passed in no time
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  await context.clock.install();
  page = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${templateId}/edit`, context });
});
undo.after(async () => page?.context().close());

undo('a removed section comes back with Undo: same place, same ids, steps and fields; the server holds it again', async () => {
  const before = await stored(templateId);
  await page.getByRole('button', { name: 'Remove Section 1: Part A', exact: true }).click();
  const toast = toastWith(page, 'Section 1: Part A removed, with its steps (2).');
  await toast.waitFor();
  assert.is(await page.getByRole('heading', { level: 2, name: /Part A/ }).count(), 0);
  await saved(page);
  // the removal is saved like any change (the next revision)…
  assert.equal(
    (await stored(templateId)).content.sections.map((s) => s.title),
    ['Part B'],
  );
  // (axe and the screenshot with the toast: the last suite, where no 10 s window is running out)
  // …and Undo puts back the very section, first again, saved at the revision after
  await toast.getByRole('button', { name: 'Undo' }).click();
  await toast.waitFor({ state: 'detached' });
  await page.getByRole('heading', { level: 2, name: 'Section 1: Part A' }).waitFor();
  await saved(page);
  const after = await stored(templateId);
  assert.equal(ids(after.content), ids(before.content));
  assert.ok(after.revision > before.revision + 1, `revisions ${before.revision} → ${after.revision}`);
  // the focus is on what came back
  assert.is(await page.evaluate<string | null>('document.activeElement?.textContent ?? null'), 'Section 1: Part A');
});

undo('without Undo, once the toast is gone the server holds the removal', async () => {
  await page.getByRole('button', { name: 'Remove Section 2: Part B', exact: true }).click();
  const toast = toastWith(page, 'Section 2: Part B removed');
  await toast.waitFor();
  // the page's clock past the toast's 10 s, rather than waiting them out
  await page.clock.fastForward(11_000);
  await toast.waitFor({ state: 'detached' });
  await saved(page);
  assert.equal(
    (await stored(templateId)).content.sections.map((s) => s.title),
    ['Part A'],
  );
});

undo('a step and a field come back the same way, at their places', async () => {
  const before = await stored(templateId);
  await stepRegion(page, 1).getByRole('button', { name: 'Remove Step 1: Task A1' }).click();
  // the toast's 10 s stand still while the focus is on its Undo (a keyboard user reaching it in time, WCAG 2.2.1)
  const stepUndo = toastWith(page, 'Step 1: Task A1 removed.').getByRole('button', { name: 'Undo' });
  await stepUndo.focus();
  await page.mouse.move(0, 0);
  // the page's clock past the toast's 10 s: every timer due by then has run
  await page.clock.fastForward(11_000);
  assert.ok(await stepUndo.isVisible(), 'the focused toast outlives its 10 s');
  await stepUndo.click();
  await stepRegion(page, 1).getByRole('heading', { name: 'Step 1: Task A1' }).waitFor();
  await stepRegion(page, 2).getByRole('button', { name: 'Remove field Reading A2' }).click();
  await toastWith(page, 'Field Reading A2 removed.').waitFor();
  await saved(page);
  assert.equal((await stored(templateId)).content.sections[0].steps[1].fields, []);
  await toastWith(page, 'Field Reading A2 removed.').getByRole('button', { name: 'Undo' }).click();
  await stepRegion(page, 2).getByRole('group', { name: 'Field Reading A2' }).waitFor();
  await saved(page);
  assert.equal(ids((await stored(templateId)).content), ids(before.content));
});

undo.run();

// ── field keys, formulas, conditions, the preview ─────────────────────────

const fields = suite('app author editing: keys from labels, formulas, conditions by type, the preview');
let editor: Page;
let fieldsTemplate = 0;
fields.before(async () => {
  fieldsTemplate = await draft('Pump pressures', 1, 2);
  editor = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${fieldsTemplate}/edit` });
});
fields.after(async () => editor?.context().close());

async function addField(page: Page, step: number, type: string): Promise<void> {
  await stepRegion(page, step).getByLabel('New field type').selectOption(type);
  await stepRegion(page, step)
    .getByRole('button', { name: /^Add field/ })
    .click();
}

fields('a new field takes its key from its label: lowercased, ä → ae, unique in the version; a typed key stays', async () => {
  // "Section 1: Section 1" is gone: a section's heading names its number and title once
  assert.is(await editor.getByRole('heading', { level: 2 }).first().innerText(), 'Section 1: Part A');
  await addField(editor, 1, 'NUMBER');
  const first = stepRegion(editor, 1).getByRole('group', { name: 'Field field' });
  await first.getByLabel('Label').fill('Druck vor Prüfung');
  const pressure = stepRegion(editor, 1).getByRole('group', { name: 'Field Druck vor Prüfung' });
  assert.is(await pressure.getByLabel('Key').inputValue(), 'druck_vor_pruefung');
  // the same label in another step: the key stays unique within the version
  await addField(editor, 2, 'NUMBER');
  await stepRegion(editor, 2).getByRole('group', { name: 'Field field' }).getByLabel('Label').fill('Druck vor Prüfung');
  const second = stepRegion(editor, 2).getByRole('group', { name: 'Field Druck vor Prüfung' });
  assert.is(await second.getByLabel('Key').inputValue(), 'druck_vor_pruefung_2');
  // a key the author typed is theirs: the label no longer moves it
  await second.getByLabel('Key').fill('p_out');
  await second.getByLabel('Label').fill('Druck nach Prüfung');
  assert.is(await stepRegion(editor, 2).getByRole('group', { name: 'Field Druck nach Prüfung' }).getByLabel('Key').inputValue(), 'p_out');
  await saved(editor);
  const steps = (await stored(fieldsTemplate)).content.sections[0].steps;
  assert.equal(
    steps.map((s) => s.fields.map((f) => [f.key, f.label])),
    [
      [
        ['reading_0_0', 'Reading A1'],
        ['druck_vor_pruefung', 'Druck vor Prüfung'],
      ],
      [
        ['reading_0_1', 'Reading A2'],
        ['p_out', 'Druck nach Prüfung'],
      ],
    ],
  );
  // a key read from the server is stable: relabelling a saved field leaves its key
  await stepRegion(editor, 1).getByRole('group', { name: 'Field Reading A1' }).getByLabel('Label').fill('Reading before');
  assert.is(await stepRegion(editor, 1).getByRole('group', { name: 'Field Reading before' }).getByLabel('Key').inputValue(), 'reading_0_0');
});

fields('a calculated field: no "Required", its formula built from the fields by their labels, its value in the preview', async () => {
  await addField(editor, 2, 'CALCULATED');
  const calc = stepRegion(editor, 2).getByRole('group', { name: 'Field field' });
  await calc.getByLabel('Label').fill('Pressure drop');
  const drop = stepRegion(editor, 2).getByRole('group', { name: 'Field Pressure drop' });
  assert.is(await drop.getByLabel('Required').count(), 0, 'a calculated field has no "Required"');
  await drop.getByLabel('Unit').fill('bar');
  // the formula's fields by their labels, with where they are: no step id to know
  await drop.getByRole('button', { name: 'Insert Druck vor Prüfung (Step 1: Task A1) into the formula' }).click();
  const formula = drop.getByRole('textbox', { name: 'Formula', exact: true });
  await formula.fill(`${await formula.inputValue()} -`);
  await drop.getByRole('button', { name: 'Insert Druck nach Prüfung (this step) into the formula' }).click();
  await drop.getByText('Reads: Druck nach Prüfung (this step), Druck vor Prüfung (Step 1: Task A1)').waitFor();
  await saved(editor);
  const step1 = (await stored(fieldsTemplate)).content.sections[0].steps[0].stepId;
  const calculated = (await stored(fieldsTemplate)).content.sections[0].steps[1].fields[2];
  assert.equal(
    [calculated.key, calculated.type, calculated.expression],
    ['pressure_drop', 'CALCULATED', `${step1}.druck_vor_pruefung - p_out`],
  );

  await editor.getByRole('button', { name: 'Preview', exact: true }).click();
  const frame = editor.getByRole('region', { name: 'Operator preview' });
  await frame.getByLabel(/Druck vor Prüfung/).fill('2.75');
  await frame.getByRole('button', { name: 'Next step' }).click();
  await frame.getByRole('heading', { name: 'Task A2' }).waitFor();
  await frame.getByLabel(/Druck nach Prüfung/).fill('1.5');
  await frame.locator('output').filter({ hasText: '1.25 bar' }).waitFor();
  await checkPage(editor, 'author', 'preview-calculated', 1280);
  await editor.getByRole('button', { name: 'Edit', exact: true }).click();
});

fields('the condition builder offers a pass/fail field only "is", "is not" and "recorded"; a number field its order too', async () => {
  await addField(editor, 1, 'PASS_FAIL');
  await stepRegion(editor, 1).getByRole('group', { name: 'Field field' }).getByLabel('Label').fill('Seal tight');
  const condition = stepRegion(editor, 2).getByRole('group', { name: 'When does Step 2 apply?' });
  await condition.getByRole('button', { name: 'Only when…' }).click();
  await condition.getByLabel('Reads').selectOption('field');
  await condition.getByLabel('Field', { exact: true }).selectOption({ label: 'Seal tight' });
  const ops = await condition.getByLabel('Comparison').locator('option').allInnerTexts();
  assert.equal(ops, ['is', 'is not', 'is recorded']);
  await condition.getByLabel('Field', { exact: true }).selectOption({ label: 'Druck vor Prüfung' });
  const numeric = await condition.getByLabel('Comparison').locator('option').allInnerTexts();
  assert.ok(numeric.includes('is less than'), numeric.join(', '));
  // at 1366 px the selects show their whole text
  await editor.setViewportSize({ width: 1366, height: 900 });
  // each select's chosen text, measured in the select's font, fits its box (less the arrow)
  const cut = await editor.evaluate<string[]>(`[...document.querySelectorAll('fieldset.condition-editor select')].filter((s) => {
    const probe = document.createElement('span');
    probe.textContent = s.selectedOptions[0]?.text ?? '';
    probe.style.font = getComputedStyle(s).font;
    probe.style.position = 'absolute';
    document.body.append(probe);
    const wide = probe.getBoundingClientRect().width;
    probe.remove();
    return s.offsetParent !== null && wide > s.clientWidth - 24;
  }).map((s) => s.id)`);
  assert.equal(cut, [], 'selects whose chosen text is cut at 1366 px');
  await checkPage(editor, 'author', 'condition-1366', 1366);
  await editor.setViewportSize({ width: 1280, height: 900 });
});

fields.run();

// ── outline and folding ───────────────────────────────────────────────────

const outline = suite('app author editing: the outline and folding sections');
outline('a long draft: the outline jumps to a step, a folded section stays folded while editing and opens for a jump', async () => {
  const id = await draft('Long draft', 3, 2);
  const p = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${id}/edit` });
  try {
    const nav = p.getByRole('navigation', { name: 'Outline' });
    await nav.getByRole('link', { name: 'Step 5: Task C1' }).waitFor();
    await p.getByRole('button', { name: 'Collapse Section 2: Part B' }).click();
    await p.getByRole('heading', { name: 'Step 3: Task B1' }).waitFor({ state: 'hidden' });
    const tall = await p.evaluate<number>('document.documentElement.scrollHeight');
    // an edit elsewhere keeps it folded
    await stepRegion(p, 1).getByLabel('Step title').fill('Task A1, checked');
    await saved(p);
    assert.is(await p.getByRole('button', { name: 'Expand Section 2: Part B' }).getAttribute('aria-expanded'), 'false');
    // the outline's link to a step in it opens the section and puts the focus on the step
    await nav.getByRole('link', { name: 'Step 4: Task B2' }).click();
    await p.getByRole('heading', { name: 'Step 4: Task B2' }).waitFor();
    assert.is(await p.evaluate<string | null>('document.activeElement?.textContent ?? null'), 'Step 4: Task B2');
    await nav.getByRole('button', { name: 'Collapse all sections' }).click();
    const folded = await p.evaluate<number>('document.documentElement.scrollHeight');
    assert.ok(folded < tall, `folded ${folded} px < ${tall} px`);
    await checkPage(p, 'author', 'outline', 1280);
    await nav.getByRole('button', { name: 'Expand all sections' }).click();
  } finally {
    await p.context().close();
  }
});
outline.run();

// ── conflict: the same author on another device ───────────────────────────

const conflict = suite('app author editing: the conflict dialog names the same author');
conflict('the same author in two browsers: "You changed this draft on another device"', async () => {
  const id = await draft('Two devices', 1, 1);
  const tablet = await openApp(browser, wip, team.author, { width: 820, path: `/app/templates/${id}/edit` });
  const desk = await openApp(browser, wip, team.author, { width: 1280, path: `/app/templates/${id}/edit` });
  try {
    await stepRegion(tablet, 1).getByLabel('Step title').fill('Task A1 (tablet)');
    await saved(tablet);
    await stepRegion(desk, 1).getByLabel('Step title').fill('Task A1 (desk)');
    const dialog = desk.getByRole('dialog', { name: 'You changed this draft on another device' });
    await dialog.waitFor();
    await dialog.getByText('Task A1 (tablet)').waitFor();
    assert.match(await dialog.innerText(), /You changed this on another device at/);
    assert.not.match(await dialog.innerText(), /Someone|Ada Author/);
    await checkPage(desk, 'author', 'conflict-self', 1280);
    await dialog.getByRole('button', { name: "Keep this page's version, replacing it" }).click();
    await saved(desk);
    assert.is((await stored(id)).content.sections[0].steps[0].title, 'Task A1 (desk)');
  } finally {
    await tablet.context().close();
    await desk.context().close();
  }
});
conflict.run();

// ── the library, empty ────────────────────────────────────────────────────

const library = suite('app author editing: the empty library and the new template form');
library('no templates yet: said so, with the first one to create; a search that finds nothing says what was searched', async () => {
  const empty = await buildAppTeam(wip, 'Fresh Plant');
  const p = await openApp(browser, wip, empty.author, { width: 1280, path: '/app/templates' });
  try {
    await p.getByRole('heading', { level: 2, name: 'No templates yet' }).waitFor();
    assert.is(await p.getByText('No template matches').count(), 0);
    await p.getByLabel('Search title and description').fill('gearbox');
    await p.getByText('No template matches “gearbox”.').waitFor();
    await p.getByLabel('Search title and description').fill('');
    await p.getByRole('button', { name: 'Create the first template' }).click();
    // the title is required, said at the input
    await p.getByRole('button', { name: 'Create and edit' }).click();
    const title = p.getByLabel('Title', { exact: true });
    assert.is(await title.getAttribute('aria-invalid'), 'true');
    assert.is(await p.locator(`#${await title.getAttribute('aria-describedby')}`).innerText(), 'Enter a title.');
    assert.is(await p.evaluate<string | null>('document.activeElement?.id ?? null'), 'new-title');
    await p.locator('.label-line .required').filter({ hasText: '*' }).waitFor();
  } finally {
    await p.context().close();
  }
  for (const width of APP_WIDTHS) {
    const q = await openApp(browser, wip, empty.author, { width, path: '/app/templates' });
    try {
      await english(q);
      await q.getByRole('heading', { level: 2, name: 'No templates yet' }).waitFor();
      await checkPage(q, 'author', 'library-empty', width);
      await q.locator('label.language select').selectOption('de');
      await q.getByRole('heading', { level: 2, name: 'Noch keine Vorlagen' }).waitFor();
      await checkPage(q, 'author', 'library-empty-de', width);
    } finally {
      await q.context().close();
    }
  }
});
library.run();

// ── every new part at every width, English and German ─────────────────────

const widths = suite('app author editing: outline, toast and fields at 390 / 820 / 1280 px, English and German, axe-core');
widths('the editor with its outline, a folded section and an undo toast', async () => {
  const id = await draft('Every width', 2, 2);
  for (const width of APP_WIDTHS) {
    const p = await openApp(browser, wip, team.author, { width, path: `/app/templates/${id}/edit` });
    try {
      await english(p);
      await p.getByRole('navigation', { name: 'Outline' }).waitFor();
      await p.getByRole('button', { name: 'Collapse Section 2: Part B' }).click();
      await stepRegion(p, 1).getByRole('button', { name: 'Remove field Reading A1' }).click();
      await toastWith(p, 'Field Reading A1 removed.').waitFor();
      // the full-page screenshot from the top: scrolled, the sticky header would show in the middle of it
      await p.evaluate('scrollTo(0, 0)');
      await checkPage(p, 'author', 'editor-outline', width);
      await toastWith(p, 'Field Reading A1 removed.').getByRole('button', { name: 'Undo' }).click();
      await stepRegion(p, 1).getByRole('group', { name: 'Field Reading A1' }).waitFor();
      await saved(p);
      await p.locator('label.language select').selectOption('de');
      await p.getByRole('navigation', { name: 'Gliederung' }).waitFor();
      await p.getByRole('button', { name: 'Abschnitt 2: Part B aufklappen' }).waitFor();
      await p.evaluate('scrollTo(0, 0)');
      await checkPage(p, 'author', 'editor-outline-de', width);
      await p.getByRole('button', { name: 'Abschnitt 2: Part B aufklappen' }).click();
    } finally {
      await p.context().close();
    }
  }
  // what the undos left is what was there
  assert.equal(
    (await stored(id)).content.sections[0].steps[0].fields.map((f) => f.key),
    ['reading_0_0'],
  );
});
widths.after(async () => {
  await browser?.close();
  await wip?.stop();
});
widths.run();
