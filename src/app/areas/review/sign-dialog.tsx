import { useEffect, useState } from 'preact/hooks';
import { ApiError, graphql } from '../../api/client';
import { useI18n } from '../../i18n';
import { Dialog, ESignatureDialog, TextField } from '../../ui';
import { personName, SIGN, type Person, type ReviewVersion, type SignedAction } from './queries';
import type { SignatureMeaning } from '../../../domain/vocabulary';

/**
 * Signs a version (approve, reject, publish) with the app's e-signature dialog
 * (src/app/ui/e-signature-dialog.tsx): what is signed is the template, its
 * number and the content's fingerprint. The exceptions page signs a job's
 * review (reviewJob) with the same dialog.
 */
const MEANING: Record<SignedAction, SignatureMeaning> = {
  APPROVE: 'APPROVED',
  REJECT: 'REJECTED',
  PUBLISH: 'PUBLISHED',
};

export interface SignDialogProps {
  action: SignedAction | null;
  version: ReviewVersion;
  signer: Person;
  onClose: () => void;
  onSigned: (action: SignedAction) => void;
}

/** Signs a version: approve, reject (with a reason) or publish. */
export function SignDialog({ action, version, signer, onClose, onSigned }: SignDialogProps) {
  const { t } = useI18n();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);

  useEffect(() => {
    setReason('');
    setReasonError(null);
  }, [action]);

  if (!action) return <Dialog open={false} title="" onClose={onClose} children={null} />;
  const meaning = t(`review.meaning.${MEANING[action]}`);
  return (
    <ESignatureDialog
      open
      formId={`sign-${action.toLowerCase()}`}
      title={t(`review.sign.title.${action}`)}
      submitLabel={t(`review.sign.submit.${action}`)}
      danger={action === 'REJECT'}
      texts="review.sign"
      codeHint={t('review.sign.codeHint')}
      subject={[
        { label: t('review.sign.document'), value: t('review.queue.item', { title: version.template.title, number: version.number }) },
        { label: t('review.sign.fingerprint'), value: <code class="hash">{version.contentHash}</code> },
      ]}
      signer={{ name: personName(signer), email: signer.email }}
      meaning={meaning}
      statement={t('review.sign.statement', { name: personName(signer), meaning })}
      validate={() => {
        if (action === 'REJECT' && reason.trim() === '') {
          setReasonError(t('review.sign.reasonRequired'));
          return false;
        }
        setReasonError(null);
        return true;
      }}
      sign={(credentials) => graphql(SIGN[action], { versionId: version.id, ...credentials, ...(action === 'REJECT' && { reason }) })}
      onFieldProblem={(caught) => {
        const reasonProblem = caught instanceof ApiError ? caught.fields.find((f) => f.path.endsWith('reason')) : undefined;
        if (reasonProblem) setReasonError(reasonProblem.message);
        return reasonProblem !== undefined;
      }}
      onClose={onClose}
      onSigned={() => onSigned(action)}
    >
      {action === 'REJECT' && (
        <TextField
          label={t('review.sign.reason')}
          value={reason}
          onValue={setReason}
          multiline
          rows={3}
          required
          maxLength={2000}
          error={reasonError}
          hint={t('review.sign.reasonHint')}
        />
      )}
    </ESignatureDialog>
  );
}
