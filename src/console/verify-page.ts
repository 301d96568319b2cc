/**
 * The record bundle verifier page: served at /verify/ and
 * downloadable as one self-contained HTML file. A dropped (or chosen) bundle
 * is read and checked here, in the browser, by the same verifier as `wip
 * verify-bundle` (src/domain/record-verify.ts, WebCrypto): nothing is sent
 * anywhere, so it works opened from disk on a machine that never saw the
 * appliance.
 */
import './verify-page.css';
import { h, replace } from './dom';
import { parseTrustedKeys, verdictLine, verifyRecordBundle, type TrustedKeys, type Verification } from '../domain/record-verify';

/** The verdict's colour: only VERIFIED is green; INTEGRITY ONLY is a warning (origin not verified), not a pass. */
const VERDICT_CLASS: Record<Verification['verdict'], string> = {
  VERIFIED: 'verdict-ok',
  INTEGRITY_ONLY: 'verdict-warn',
  NOT_VERIFIED: 'verdict-fail',
};

function resultView(fileName: string, result: Verification): HTMLElement {
  const s = result.summary;
  return h(
    'section.card',
    { 'aria-labelledby': 'verdict' },
    h(`h2.${VERDICT_CLASS[result.verdict]}`, { id: 'verdict', 'data-verdict': result.verdict }, verdictLine(result)),
    result.verdict === 'INTEGRITY_ONLY' &&
      h(
        'p',
        {},
        'Anyone who rewrites a record can re-sign it with a key of their own and get this answer. Paste the appliance’s key fingerprint or key set under “Trusted signing keys” to verify who signed it.',
      ),
    h('p', {}, `File: ${fileName}`),
    s &&
      h(
        'dl.facts',
        {},
        h('dt', {}, 'Job'),
        h('dd', {}, `${s.jobId}: ${s.jobTitle} (${s.jobState})`),
        h('dt', {}, 'Client'),
        h('dd', {}, s.clientName),
        h('dt', {}, 'Instruction'),
        h('dd', {}, `${s.template}, version ${s.versionNumber}`),
        h('dt', {}, 'Content'),
        h('dd', {}, `${s.steps} steps, ${s.faults} faults, ${s.files} files (${s.attachments} included), ${s.auditEntries} audit entries`),
        h('dt', {}, 'Issued'),
        h('dd', {}, s.issuedAt),
      ),
    result.signer &&
      h(
        'p',
        {},
        'Signed by key ',
        h('code.fingerprint', { 'data-testid': 'signer' }, result.signer.kid),
        result.signer.trusted === true
          ? ' (trusted)'
          : result.signer.trusted === false
            ? ' (NOT trusted)'
            : ' (compare this fingerprint with the one the appliance publishes)',
      ),
    result.timestamp && h('p', {}, `Time-stamped ${result.timestamp.genTime} by ${result.timestamp.tsa}`),
    result.problems.length > 0 && [
      h('h3', {}, 'Problems'),
      h(
        'ul.problems',
        { 'data-testid': 'problems' },
        result.problems.map((p) => h('li', {}, p)),
      ),
    ],
    result.notes.length > 0 && [
      h('h3', {}, 'Checked'),
      h(
        'ul.notes',
        {},
        result.notes.map((n) => h('li', {}, n)),
      ),
    ],
  );
}

function main(): void {
  const root = document.getElementById('app')!;
  const output = h('div', { id: 'result', 'aria-live': 'polite' });
  const fileInput = h('input', { id: 'bundle-file', type: 'file', accept: '.json,application/json' });
  const keyInput = h('textarea', { id: 'trusted-keys', rows: 3, spellcheck: 'false', 'aria-describedby': 'trusted-keys-hint' });
  const tsaInput = h('input', { id: 'tsa-cert', type: 'text', spellcheck: 'false', 'aria-describedby': 'tsa-cert-hint' });
  let dropped: File | null = null;

  const verify = async () => {
    const file = dropped ?? fileInput.files?.[0] ?? null;
    if (!file) {
      replace(output, h('p.error', { role: 'alert' }, 'Choose or drop a record bundle first.'));
      return;
    }
    replace(output, h('p', {}, 'Verifying…'));
    let trusted: TrustedKeys | undefined;
    try {
      trusted = keyInput.value.trim() ? await parseTrustedKeys(keyInput.value) : undefined;
    } catch (error) {
      replace(output, h('p.error', { role: 'alert' }, `Trusted keys: ${(error as Error).message}`));
      return;
    }
    const tsa = tsaInput.value.trim().toLowerCase();
    if (tsa) trusted = { ...trusted, tsaCertificates: [tsa] };
    const result = await verifyRecordBundle(await file.text(), trusted);
    replace(output, resultView(file.name, result));
  };

  const drop = h(
    'div.dropzone',
    {
      ondragover: (event: DragEvent) => event.preventDefault(),
      ondrop: (event: DragEvent) => {
        event.preventDefault();
        dropped = event.dataTransfer?.files[0] ?? null;
        if (dropped) void verify();
      },
    },
    h('label', { for: 'bundle-file' }, 'Record bundle (job-…-record.json): choose it, or drop it here'),
    fileInput,
  );
  fileInput.addEventListener('change', () => {
    dropped = null;
  });

  const served = location.protocol === 'http:' || location.protocol === 'https:';
  replace(
    root,
    h(
      'main',
      {},
      h('h1', {}, 'Verify a record bundle'),
      h(
        'p',
        {},
        'The bundle is checked in this browser: its signature, every hash, the audit chain slice, the approved version and any included photos. Nothing is uploaded.',
      ),
      served &&
        h(
          'p',
          {},
          h('a', { href: '/verify/wip-verifier.html', download: 'wip-verifier.html' }, 'Download this verifier as one HTML file'),
          ' to check bundles offline, on any machine.',
        ),
      h(
        'form',
        {
          onsubmit: (event: Event) => {
            event.preventDefault();
            void verify();
          },
        },
        drop,
        h(
          'div.field',
          {},
          h('label', { for: 'trusted-keys' }, 'Trusted signing keys'),
          keyInput,
          h(
            'span.hint',
            { id: 'trusted-keys-hint' },
            "The appliance's key fingerprint, or its key set (/.well-known/wip-signing-keys.json). Without it the answer is at best INTEGRITY ONLY: the bundle matches the key it carries, not who signed it.",
          ),
        ),
        h(
          'div.field',
          {},
          h('label', { for: 'tsa-cert' }, 'Time-stamping authority certificate SHA-256 (optional)'),
          tsaInput,
          h('span.hint', { id: 'tsa-cert-hint' }, 'With it, a timestamp token from any other authority is refused.'),
        ),
        h('button.primary', { type: 'submit', id: 'verify' }, 'Verify'),
      ),
      output,
    ),
  );
}

main();
