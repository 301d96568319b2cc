import type { FileRow, SystemFileRow } from '#db/schema';
import { MODEL_TYPES, type ModelType } from '#storage/content-type';

/** Where a client's file is downloaded: the 3D model route for models, the plain file route otherwise. */
export function fileUrl(file: Pick<FileRow, 'id' | 'content_type'>): string {
  const model = (Object.keys(MODEL_TYPES) as ModelType[]).find((type) =>
    (MODEL_TYPES[type] as readonly string[]).includes(file.content_type),
  );
  return model ? `/api/client/download-model/${model}/${file.id}` : `/api/client/files/${file.id}`;
}

export function presentFile(file: FileRow | SystemFileRow) {
  return {
    id: file.id,
    name: file.name,
    size: file.size,
    sha256: file.sha256,
    contentType: file.content_type,
    description: file.description,
    createdAt: file.created_at,
    ...('client_id' in file ? { revision: file.revision, updatedAt: file.updated_at, url: fileUrl(file) } : {}),
  };
}
