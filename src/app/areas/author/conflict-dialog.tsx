import { useEffect, useRef, useState } from 'preact/hooks';
import { graphql as gql } from '../../api/client';
import type { ConflictInfo } from './autosave';
import { fromServer, stepsInOrder, type EditorContent } from './model';
import { VERSION_QUERY, versionGid, type VersionDetail } from './queries';
import { useI18n } from '../../i18n';
import { useSession } from '../../shell/session-context';

/**
 * Someone else — or this author on another device or tab — saved the draft since this copy was read. Autosave
 * has stopped; nothing is overwritten until the author chooses. The dialog
 * shows who saved and when, and both versions' steps side by side, then:
 * take theirs (this author's unsaved changes are dropped, knowingly), or
 * keep mine (saved over theirs at their revision, knowingly).
 */
export function ConflictDialog(props: {
  conflict: ConflictInfo;
  versionId: number;
  mine: EditorContent;
  onTakeTheirs: () => Promise<void>;
  onKeepMine: (revision: number) => Promise<void>;
}) {
  const { t, format } = useI18n();
  const { conflict, versionId, mine } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const [theirs, setTheirs] = useState<VersionDetail | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
    gql<{ templateVersion: VersionDetail }>(VERSION_QUERY, { id: versionGid(versionId) })
      .then((data) => setTheirs(data.templateVersion))
      .catch((e: Error) => setError(e.message));
  }, [conflict.currentRevision]);

  // the server names who saved (CONFLICT details.updatedBy, the version's updatedBy): the same author on another device or tab is "you"
  const me = useSession().session.user.id;
  const savedBy = theirs ? (theirs.updatedBy?.databaseId ?? null) : conflict.updatedBy;
  const self = savedBy === me;
  const who = theirs?.updatedBy
    ? `${theirs.updatedBy.firstName} ${theirs.updatedBy.lastName}`.trim() || theirs.updatedBy.email
    : t('author.conflict.someone');
  const when = format.dateTime(theirs?.updatedAt ?? conflict.updatedAt);
  const theirSteps = theirs ? stepsInOrder(fromServer(theirs.content)) : [];
  const mySteps = stepsInOrder(mine);

  async function choose(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
      dialog.current?.close();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialog}
      class="dialog conflict-dialog"
      aria-labelledby="conflict-title"
      aria-describedby="conflict-text"
      onCancel={(e) => e.preventDefault()}
    >
      <h2 id="conflict-title">{t(self ? 'author.conflict.titleSelf' : 'author.conflict.title')}</h2>
      <p id="conflict-text">{self ? t('author.conflict.textSelf', { when }) : t('author.conflict.text', { who, when })}</p>
      <div class="conflict-columns">
        <div>
          <h3>{self ? t('author.conflict.theirsSelf') : t('author.conflict.theirs', { who })}</h3>
          {theirs ? (
            <ol>
              {theirSteps.map(({ step }) => (
                <li key={step.stepId}>{step.title}</li>
              ))}
            </ol>
          ) : (
            <p class="muted">{t('author.loading')}</p>
          )}
        </div>
        <div>
          <h3>{t(self ? 'author.conflict.mineSelf' : 'author.conflict.mine')}</h3>
          <ol>
            {mySteps.map(({ step }) => (
              <li key={step.stepId}>{step.title}</li>
            ))}
          </ol>
        </div>
      </div>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" class="btn btn-secondary" disabled={busy || !theirs} onClick={() => void choose(props.onTakeTheirs)}>
          {t(self ? 'author.conflict.takeTheirsSelf' : 'author.conflict.takeTheirs')}
        </button>
        <button
          type="button"
          class="btn btn-primary"
          disabled={busy || !theirs}
          onClick={() => void choose(() => props.onKeepMine(theirs!.revision))}
        >
          {t(self ? 'author.conflict.keepMineSelf' : 'author.conflict.keepMine')}
        </button>
      </div>
    </dialog>
  );
}
