import { createHash } from 'node:crypto';
import { canonicalJson } from '#lib/canonical-json';
import type { Content } from './content';

/**
 * Translated instructions (docs/translated-instructions.md): the texts of a
 * version's content cut into units with stable ids, a translation's units
 * (each remembering the hash of the source text it translates), staleness,
 * and the content as an operator reads it in their language.
 *
 * Unit ids use `:` as separator (section and step ids and field keys cannot
 * hold one) and are XLIFF NMTOKENs:
 *   sec:<sectionId>:title, step:<stepId>:title, step:<stepId>:body,
 *   field:<stepId>:<key>:label, option:<stepId>:<key>:<n>
 * An option is translated by position: its label is shown, the source option
 * stays the value recorded (a CHOICE answer never depends on the language).
 */

export type UnitKind = 'section-title' | 'step-title' | 'step-body' | 'field-label' | 'option-label';

export interface SourceUnit {
  id: string;
  kind: UnitKind;
  text: string;
}

/** What a translation keeps per unit: the SHA-256 of the source text translated, and the translation. */
export interface TranslatedUnit {
  source: string;
  target: string;
}
export type TranslationUnits = Record<string, TranslatedUnit>;

export const textHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every translatable text of the document, in reading order; empty texts are nothing to translate. */
export function sourceUnits(content: Content): SourceUnit[] {
  const units: SourceUnit[] = [];
  const add = (id: string, kind: UnitKind, text: string) => {
    if (text !== '') units.push({ id, kind, text });
  };
  for (const section of content.sections) {
    add(`sec:${section.id}:title`, 'section-title', section.title);
    for (const step of section.steps) {
      add(`step:${step.id}:title`, 'step-title', step.title);
      add(`step:${step.id}:body`, 'step-body', step.body);
      for (const field of step.fields) {
        add(`field:${step.id}:${field.key}:label`, 'field-label', field.label);
        (field.options ?? []).forEach((option, n) => add(`option:${step.id}:${field.key}:${n}`, 'option-label', option));
      }
    }
  }
  return units;
}

export type UnitState = 'translated' | 'stale' | 'missing';

/** A unit is stale when the source text it was translated from is no longer the version's. */
export function unitState(source: SourceUnit, units: TranslationUnits): UnitState {
  const unit = units[source.id];
  if (!unit) return 'missing';
  return unit.source === textHash(source.text) ? 'translated' : 'stale';
}

/** The stored form of a translation's units and its hash (what an approval signs). */
export function serializeUnits(units: TranslationUnits): { json: string; hash: string } {
  const json = canonicalJson(units);
  return { json, hash: textHash(json) };
}

/**
 * The content as an operator in the translation's language reads it: each
 * text replaced by its translation when it has a current one, the source text
 * otherwise (missing or stale). Ids, keys, options (the recorded values) and
 * rules are untouched; a CHOICE field gains `optionLabels`, the options as shown.
 */
export function localizeContent(content: Content, units: TranslationUnits): LocalizedContent {
  const text = (id: string, source: string): string => {
    const unit = units[id];
    return unit && unit.source === textHash(source) ? unit.target : source;
  };
  return {
    sections: content.sections.map((section) => ({
      ...section,
      title: text(`sec:${section.id}:title`, section.title),
      steps: section.steps.map((step) => ({
        ...step,
        title: text(`step:${step.id}:title`, step.title),
        body: text(`step:${step.id}:body`, step.body),
        fields: step.fields.map((field) => ({
          ...field,
          label: text(`field:${step.id}:${field.key}:label`, field.label),
          ...(field.options && { optionLabels: field.options.map((option, n) => text(`option:${step.id}:${field.key}:${n}`, option)) }),
        })),
      })),
    })),
  };
}

/** Content with, on fields with options, the labels to show for them. */
export type LocalizedContent = Content & { sections: { steps: { fields: { optionLabels?: string[] }[] }[] }[] };
