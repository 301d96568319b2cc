import { useState } from 'preact/hooks';
import type { EditorStep } from './model';
import type { FileInfo } from './queries';
import { MEDIA_ACCEPT, MODEL_ACCEPT, mediaKind, uploadFile, type UploadedFile } from './upload';
import { useT } from '../../i18n';

/**
 * A step's media (photos and videos, in order) and its 3D model, uploaded
 * through POST /api/client/upload with a progress bar per file. The step
 * holds only file ids; `files` knows their names and types.
 */
export interface MediaEditorProps {
  step: EditorStep;
  stepName: string;
  files: ReadonlyMap<number, FileInfo>;
  onUploaded: (file: FileInfo) => void;
  onChange: (change: Partial<Pick<EditorStep, 'media' | 'model'>>) => void;
  /** an upload finished: added to the step as it is then (other uploads may have finished meanwhile) */
  onAdd: (as: 'media' | 'model', fileId: number) => void;
  announce: (message: string) => void;
}

interface Upload {
  id: number;
  name: string;
  fraction: number;
  error: string | null;
}

let uploadSeq = 0;

const asInfo = (f: UploadedFile): FileInfo => ({
  databaseId: f.id,
  name: f.name,
  contentType: f.contentType,
  size: f.size,
  url: `/api/client/files/${f.id}`,
});

export function MediaEditor({ step, stepName, files, onUploaded, onChange, onAdd, announce }: MediaEditorProps) {
  const t = useT();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const update = (id: number, change: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...change } : u)));

  async function send(list: FileList | null, as: 'media' | 'model') {
    for (const file of [...(list ?? [])]) {
      const id = ++uploadSeq;
      setUploads((all) => [...all, { id, name: file.name, fraction: 0, error: null }]);
      announce(t('author.media.uploading', { name: file.name }));
      try {
        const stored = await uploadFile(file, (fraction) => update(id, { fraction }));
        onUploaded(asInfo(stored));
        onAdd(as, stored.id);
        setUploads((all) => all.filter((u) => u.id !== id));
        announce(t('author.media.uploaded', { name: file.name }));
      } catch (error) {
        update(id, { error: (error as Error).message });
        announce(t('author.media.failed', { name: file.name, reason: (error as Error).message }));
      }
    }
  }

  const mediaInputId = `media-${step.stepId}`;
  const modelInputId = `model-${step.stepId}`;
  const model = step.model ? files.get(step.model.fileId) : undefined;

  return (
    <div class="media-editor" role="group" aria-label={t('author.media.group', { name: stepName })}>
      {step.media.length > 0 && (
        <ul class="media-list">
          {step.media.map((fileId, i) => {
            const file = files.get(fileId);
            const name = file?.name ?? t('author.media.file', { id: fileId });
            return (
              <li key={fileId} class="media-item">
                {file && mediaKind(file.contentType) === 'image' ? (
                  <img src={file.url} alt="" class="thumb" />
                ) : (
                  <span class="thumb thumb-video" aria-hidden="true">
                    ▶
                  </span>
                )}
                <span class="media-name">{name}</span>
                <span class="media-actions">
                  <button
                    type="button"
                    class="btn btn-secondary"
                    disabled={i === 0}
                    onClick={() => onChange({ media: swap(step.media, i, i - 1) })}
                    aria-label={t('author.media.earlier', { name })}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="btn btn-secondary"
                    disabled={i === step.media.length - 1}
                    onClick={() => onChange({ media: swap(step.media, i, i + 1) })}
                    aria-label={t('author.media.later', { name })}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    class="btn btn-danger"
                    onClick={() => onChange({ media: step.media.filter((_, j) => j !== i) })}
                    aria-label={t('author.media.remove', { name })}
                  >
                    {t('author.remove')}
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {uploads.length > 0 && (
        <ul class="upload-list">
          {uploads.map((u) => (
            <li key={u.id} class="upload-item">
              <label for={`upload-${u.id}`}>{t('author.media.progress', { name: u.name })}</label>
              <progress
                id={`upload-${u.id}`}
                max={100}
                value={Math.round(u.fraction * 100)}
                aria-valuetext={`${Math.round(u.fraction * 100)} %`}
              >
                {Math.round(u.fraction * 100)} %
              </progress>
              {u.error && (
                <p class="field-error">
                  {u.error}{' '}
                  <button type="button" class="btn btn-secondary" onClick={() => setUploads((all) => all.filter((x) => x.id !== u.id))}>
                    {t('author.dismiss')}
                  </button>
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      <div class="media-buttons">
        <label class="btn btn-secondary file-button" for={mediaInputId}>
          {t('author.media.add')}
        </label>
        <input
          id={mediaInputId}
          class="visually-hidden file-input"
          type="file"
          accept={MEDIA_ACCEPT}
          multiple
          onChange={(e) => {
            const input = e.currentTarget;
            void send(input.files, 'media').finally(() => (input.value = ''));
          }}
        />
        {model || step.model ? (
          <p class="media-model">
            <span class="badge">{t('author.media.model')}</span> {model?.name ?? t('author.media.file', { id: step.model!.fileId })}{' '}
            <button
              type="button"
              class="btn btn-danger"
              onClick={() => onChange({ model: null })}
              aria-label={t('author.media.removeModel', { name: stepName })}
            >
              {t('author.remove')}
            </button>
          </p>
        ) : (
          <>
            <label class="btn btn-secondary file-button" for={modelInputId}>
              {t('author.media.addModel')}
            </label>
            <input
              id={modelInputId}
              class="visually-hidden file-input"
              type="file"
              accept={MODEL_ACCEPT}
              onChange={(e) => {
                const input = e.currentTarget;
                void send(input.files, 'model').finally(() => (input.value = ''));
              }}
            />
          </>
        )}
      </div>
    </div>
  );
}

function swap<T>(list: readonly T[], a: number, b: number): T[] {
  const copy = [...list];
  [copy[a], copy[b]] = [copy[b], copy[a]];
  return copy;
}
