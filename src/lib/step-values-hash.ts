import { canonicalJson } from './canonical-json';
import { sha256Hex } from './sha256';

/**
 * What a step sign-off signs and how it is hashed: the one
 * implementation, shared by the server when a step is signed
 * (services/signoffs.ts) and by the record bundle verifier
 * (domain/record-verify.ts, Node and browser) when it checks a sign-off against
 * the bundle's recorded values. Plain JavaScript and WebCrypto only.
 *
 * The hash is SHA-256 of the canonical JSON of
 *   {stepId, status, values: [{key, value, outOfLimits, readingId?, error?}…], comment}
 * with the values in recorded order (docs/records.md shows it by hand).
 */

export interface SignedStepValue {
  key: string;
  value: unknown;
  outOfLimits: boolean;
  readingId?: string;
  error?: string;
}

export interface SignedStepRecord {
  stepId: string;
  status: string;
  values: readonly SignedStepValue[];
  comment: string | null;
}

/** Only what a recorded value is (a bundle's values also carry the field's label, unit, limits: not signed). */
const signedValue = (v: SignedStepValue): SignedStepValue => ({
  key: v.key,
  value: v.value,
  outOfLimits: v.outOfLimits,
  ...(v.readingId !== undefined && { readingId: v.readingId }),
  ...(v.error !== undefined && { error: v.error }),
});

/** The exact text a step sign-off hashes. */
export function signedStepText(record: SignedStepRecord): string {
  return canonicalJson({ stepId: record.stepId, status: record.status, values: record.values.map(signedValue), comment: record.comment });
}

/** SHA-256 (hex) of signedStepText: a step sign-off's values_hash. */
export function stepValuesHash(record: SignedStepRecord): Promise<string> {
  return sha256Hex(signedStepText(record));
}
