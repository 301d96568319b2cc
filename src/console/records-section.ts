/**
 * Records anyone can verify in the console: the appliance's
 * signing key fingerprint, small, for an auditor to note (every page kind
 * shows it), and — for a client's Security Administrator — a job's signed
 * record bundle to download, and the verifier page.
 */
import { ApiError, query, type ErrorBody } from './api';
import { h } from './dom';
import { form, section } from './ui';

interface KeySet {
  keys: { kid: string; retiredAt?: string; createdAt: string }[];
}

/** The active key's fingerprint, or a line saying there is none yet. */
export async function fingerprintLine(): Promise<HTMLElement> {
  const response = await fetch('/.well-known/wip-signing-keys.json', { credentials: 'same-origin' }).catch(() => null);
  const set = response?.ok ? ((await response.json()) as KeySet) : null;
  const active = set?.keys.find((k) => !k.retiredAt);
  return h(
    'p.hint.fingerprint-line',
    {},
    'Record signing key fingerprint: ',
    active ? h('code', { 'data-testid': 'signing-key-fingerprint' }, active.kid) : 'none yet',
    ` (${set ? set.keys.length - (active ? 1 : 0) : 0} retired) · `,
    h('a', { href: '/.well-known/wip-signing-keys.json' }, 'published keys'),
    ' · ',
    h('a', { href: '/verify/' }, 'verify a bundle'),
  );
}

/** Download a finished job's record bundle (the Security Administrator is a user of the client: the route reads the job as any client user). */
export async function recordsSection(): Promise<HTMLElement> {
  const download = form({
    label: 'Download a record bundle',
    fields: [
      { name: 'jobId', label: 'Job id', type: 'number', min: 1, required: true, hint: 'A completed or cancelled job.' },
      { name: 'photos', label: 'Include the photos', type: 'checkbox', value: false },
    ],
    submit: 'Download record bundle',
    async onSubmit(values) {
      const jobId = Number(values.jobId);
      const response = await fetch(`/api/client/jobs/${jobId}/record-bundle${query({ photos: values.photos ? 'true' : undefined })}`, {
        credentials: 'same-origin',
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as ErrorBody;
        throw new ApiError(
          response.status,
          body.error?.code ?? 'ERROR',
          body.error?.message ?? `Download failed (${response.status})`,
          body.error?.details?.fields ?? [],
        );
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `job-${jobId}-record.json`;
      const url = URL.createObjectURL(await response.blob());
      const link = h('a', { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      return `Downloaded ${name}.`;
    },
  });
  return section(
    'Record bundles',
    h(
      'p',
      {},
      "A finished job's record, signed by this appliance: anyone can verify it offline with wip verify-bundle or the verifier page.",
    ),
    download,
    await fingerprintLine(),
  );
}
