import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  isReferenced,
  keyFor,
  keyFromLabel,
  newField,
  newSection,
  relabelled,
  restored,
  withoutItem,
  withType,
  type EditorContent,
  type Removed,
} from '../../src/app/areas/author/model';
import { parseExpression } from '../../src/domain/expressions';

// The editor's document rules that need no browser — keys from
// labels, and a removal undone to exactly what was there. The pages that use
// them are tested in test/browser/app-author-editing.test.ts.

test('a label gives a key a formula can name: lowercased, umlauts folded, the rest "_"', () => {
  assert.is(keyFromLabel('Druck vor Prüfung (bar)'), 'druck_vor_pruefung_bar');
  assert.is(keyFromLabel('Größe Ölstand'), 'groesse_oelstand');
  assert.is(keyFromLabel('Café crème'), 'cafe_creme');
  assert.is(keyFromLabel('  --  '), '');
  assert.is(keyFromLabel('2nd reading'), 'f_2nd_reading');
  assert.is(keyFromLabel('x'.repeat(80)).length, 64);
  // every key it makes is one the expression language reads as a single name
  for (const label of ['Druck vor Prüfung', '2nd reading', 'Ä-Ö-Ü ß', 'a.b c']) {
    const key = keyFromLabel(label);
    assert.equal(parseExpression(key), { kind: 'ref', name: key }, label);
  }
});

function draft(): EditorContent {
  const content: EditorContent = {
    qualifications: [{ skill: 'Welding', level: 2 }],
    sections: [newSection('Prepare', 'Read'), newSection('Close', 'Sign')],
  };
  const step = content.sections[0].steps[0];
  step.fields.push(newField(content, 'NUMBER', ''));
  step.fields[0] = relabelled(step.fields[0], 'Pressure', step.stepId, content);
  return content;
}

test('keys are unique within the version; an empty label gives "field"', () => {
  const content = draft();
  assert.is(content.sections[0].steps[0].fields[0].key, 'pressure');
  assert.is(keyFor('Pressure', content), 'pressure_2');
  assert.is(keyFor('', content), 'field');
  // the field's own key does not count against it
  assert.is(keyFor('Pressure', content, content.sections[0].steps[0].fields[0].uid), 'pressure');
});

test('a key follows its label until typed, read from the server, or named by a formula or condition', () => {
  const content = draft();
  const step = content.sections[0].steps[0];
  const field = step.fields[0];
  assert.is(relabelled(field, 'Pressure in', step.stepId, content).key, 'pressure_in');
  assert.is(relabelled({ ...field, keyFollowsLabel: false }, 'Pressure in', step.stepId, content).key, 'pressure');
  // a formula of a later step names it: the key stays, and stops following
  const later = content.sections[1].steps[0];
  later.fields.push({ ...newField(content, 'CALCULATED', 'Twice'), expression: `${step.stepId}.pressure * 2` });
  assert.ok(isReferenced(content, step.stepId, 'pressure'));
  const kept = relabelled(field, 'Pressure in', step.stepId, content);
  assert.equal([kept.key, kept.label, kept.keyFollowsLabel], ['pressure', 'Pressure in', false]);
  // a condition names it
  later.fields.pop();
  assert.not.ok(isReferenced(content, step.stepId, 'pressure'));
  content.sections[1].when = { any: [{ step: step.stepId, field: 'pressure', op: 'gt', value: 3 }] };
  assert.ok(isReferenced(content, step.stepId, 'pressure'));
});

test('a calculated field is never required', () => {
  const content = draft();
  const field = { ...content.sections[0].steps[0].fields[0], required: true };
  assert.is(withType(field, 'CALCULATED').required, false);
  assert.is(withType(field, 'TEXT').required, true);
});

test('undo puts back the very section, step or field at its place; twice does nothing', () => {
  const content = draft();
  const removals: Removed[] = [
    { kind: 'section', index: 0, section: content.sections[0] },
    { kind: 'step', sectionId: content.sections[1].sectionId, index: 0, step: content.sections[1].steps[0] },
    { kind: 'field', stepId: content.sections[0].steps[0].stepId, index: 0, field: content.sections[0].steps[0].fields[0] },
  ];
  for (const removed of removals) {
    const without = withoutItem(content, removed);
    assert.not.equal(without, content, removed.kind);
    const back = restored(without, removed)!;
    assert.equal(back, content, removed.kind);
    assert.is(restored(back, removed), null, `${removed.kind} restored twice`);
  }
  // a section removed after its step was: the step cannot come back, and says so (null)
  const stepGone = withoutItem(content, removals[1]);
  assert.is(restored(withoutItem(stepGone, { kind: 'section', index: 1, section: stepGone.sections[1] }), removals[1]), null);
  // a list that got shorter meanwhile: the section goes to the end
  const shorter = withoutItem(withoutItem(content, removals[0]), { kind: 'section', index: 0, section: content.sections[1] });
  assert.equal(restored(shorter, removals[0])!.sections, [content.sections[0]]);
});

test.run();
