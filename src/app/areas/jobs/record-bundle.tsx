import { useId, useState } from 'preact/hooks';
import { ApiError, requestLanguage } from '../../api/client';
import { parseTrustedKeys, verifyRecordBundle, type Verification } from '../../../domain/record-verify';
import { useI18n, useT } from '../../i18n';
import { Button, Card, Checkbox, ErrorNotice, Notice } from '../../ui';

/** The states whose record the server signs (src/services/record-bundles.ts FINISHED): nothing more can be recorded. */
const FINISHED = new Set(['COMPLETED', 'CANCELLED', 'REVIEWED']);

interface Saved {
  name: string;
  text: string;
}

/**
 * The signed record of a finished job on its record page: "Download record"
 * saves the record bundle the server signs (GET /api/client/jobs/:id/record-bundle,
 * docs/records.md; with the photos if asked), and "Verify" checks a bundle —
 * the one just downloaded, or any file chosen — here in the browser, with the
 * same verifier as the public /verify/ page and `wip verify-bundle`
 * (src/domain/record-verify.ts), against this appliance's published signing
 * keys. Nothing is sent for the check.
 */
export function RecordBundle({ jobId, state }: { jobId: string; state: string }) {
  const t = useT();
  const fileId = useId();
  const [photos, setPhotos] = useState(false);
  const [saved, setSaved] = useState<Saved | null>(null);
  const [chosen, setChosen] = useState<File | null>(null);
  const [busy, setBusy] = useState<'download' | 'verify' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<{ name: string; verification: Verification } | null>(null);
  if (!FINISHED.has(state)) {
    return (
      <Card heading={t('jobs.bundle.heading')}>
        <p class="hint">{t('jobs.bundle.notFinished')}</p>
      </Card>
    );
  }
  const run = async (what: 'download' | 'verify', work: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await work();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  };
  const download = () =>
    run('download', async () => {
      const file = await fetchBundle(jobId, photos);
      saveAs(file);
      setSaved(file);
      setResult(null);
    });
  const verify = () =>
    run('verify', async () => {
      const file = chosen ? { name: chosen.name, text: await chosen.text() } : saved;
      if (!file) throw new Error(t('jobs.bundle.nothingToVerify'));
      setResult({ name: file.name, verification: await verifyBundle(file.text) });
    });
  return (
    <Card heading={t('jobs.bundle.heading')} class="record-bundle">
      <p>{t('jobs.bundle.intro')}</p>
      <Checkbox label={t('jobs.bundle.photos')} checked={photos} onChecked={setPhotos} hint={t('jobs.bundle.photosHint')} />
      <div class="actions">
        <Button variant="primary" busy={busy === 'download'} onClick={() => void download()}>
          {t('jobs.bundle.download')}
        </Button>
      </div>
      {saved && <Notice tone="success">{t('jobs.bundle.saved', { name: saved.name })}</Notice>}
      <div class="field">
        <label for={fileId}>{t('jobs.bundle.file')}</label>
        <input
          id={fileId}
          type="file"
          accept=".json,application/json"
          aria-describedby={`${fileId}-hint`}
          onChange={(event) => {
            setChosen(event.currentTarget.files?.[0] ?? null);
            setResult(null);
          }}
        />
        <p class="hint" id={`${fileId}-hint`}>
          {t(saved ? 'jobs.bundle.fileHintSaved' : 'jobs.bundle.fileHint')}
        </p>
      </div>
      <div class="actions">
        <Button busy={busy === 'verify'} disabled={!chosen && !saved} onClick={() => void verify()}>
          {t('jobs.bundle.verify')}
        </Button>
      </div>
      {error !== null && <ErrorNotice error={error} />}
      {result && <VerificationResult name={result.name} result={result.verification} jobId={jobId} />}
    </Card>
  );
}

/** The verdict in words: valid and by whom, or each thing that failed (the verifier's own lines). */
function VerificationResult({ name, result, jobId }: { name: string; result: Verification; jobId: string }) {
  const { t, formatDate } = useI18n();
  const s = result.summary;
  const otherJob = s !== null && String(s.jobId) !== jobId;
  return (
    <section
      class={`verification verification-${result.verdict === 'VERIFIED' ? 'ok' : 'fail'}`}
      aria-labelledby="verification-verdict"
      data-verdict={result.verdict}
    >
      <h3 id="verification-verdict">{t(`jobs.bundle.verdict.${result.verdict}`, { name })}</h3>
      {result.signer && (
        <p>
          {t(result.signer.trusted ? 'jobs.bundle.signedByAppliance' : 'jobs.bundle.signedByOther')}{' '}
          <code class="fingerprint">{result.signer.kid}</code>
        </p>
      )}
      {s && (
        <p>
          {t('jobs.bundle.summary', {
            id: s.jobId,
            title: s.jobTitle,
            steps: s.steps,
            files: s.files,
            issued: formatDate(s.issuedAt, true),
          })}
        </p>
      )}
      {otherJob && <Notice tone="warning">{t('jobs.bundle.otherJob', { id: s.jobId })}</Notice>}
      {result.timestamp && <p>{t('jobs.bundle.timestamp', { time: result.timestamp.genTime, tsa: result.timestamp.tsa })}</p>}
      {result.problems.length > 0 && (
        <>
          <h4>{t('jobs.bundle.problems')}</h4>
          <ul class="problems">
            {result.problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** The bundle's exact bytes as the server sent them (the file a user keeps), or the API's refusal as an ApiError. */
async function fetchBundle(jobId: string, photos: boolean): Promise<Saved> {
  const language = requestLanguage();
  let response: Response;
  try {
    response = await fetch(`/api/client/jobs/${encodeURIComponent(jobId)}/record-bundle${photos ? '?photos=true' : ''}`, {
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(language && { 'accept-language': language }) },
    });
  } catch {
    throw new ApiError(0, 'OFFLINE', 'No connection to the server');
  }
  const text = await response.text();
  if (!response.ok) {
    const body = (() => {
      try {
        return JSON.parse(text) as { error?: { code?: string; message?: string } };
      } catch {
        return {};
      }
    })();
    throw new ApiError(response.status, body.error?.code ?? 'ERROR', body.error?.message ?? `Download failed (${response.status})`);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `job-${jobId}-record.json`;
  return { name, text };
}

function saveAs(file: Saved): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Checked against the keys this appliance publishes: VERIFIED means intact and signed by this appliance. */
async function verifyBundle(text: string): Promise<Verification> {
  let keys: string;
  try {
    const response = await fetch('/.well-known/wip-signing-keys.json', { credentials: 'same-origin' });
    if (!response.ok) throw new Error(String(response.status));
    keys = await response.text();
  } catch {
    throw new ApiError(0, 'OFFLINE', 'No connection to the server');
  }
  return verifyRecordBundle(text, await parseTrustedKeys(keys));
}
