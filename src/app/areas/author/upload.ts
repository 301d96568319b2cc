/**
 * Uploads through the existing route (POST /api/client/upload) with the
 * progress of the bytes sent. fetch() reports no upload progress, so this is
 * the one XMLHttpRequest of the area: same origin, the session cookie, the
 * CSRF double submit (the wip_csrf cookie echoed in X-CSRF-Token), the
 * envelope read like every other answer.
 */
import { ApiError } from '../../api/client';

export interface UploadedFile {
  id: number;
  name: string;
  size: number;
  contentType: string;
  sha256: string;
}

/** A refused upload: an ApiError, so its message is the app's text for the code (src/app/error-text.ts). */
export class UploadError extends ApiError {}

function csrfToken(): string {
  const match = /(?:^|;\s*)wip_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

/** Sends one file; `onProgress` gets the fraction sent (0…1). Resolves with the stored file. */
export function uploadFile(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/client/upload');
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('x-csrf-token', csrfToken());
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: { success?: boolean; data?: { files?: UploadedFile[] }; error?: { code?: string; message?: string } } | null;
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        reject(new UploadError(xhr.status, 'BAD_RESPONSE', `Unexpected answer (${xhr.status})`));
        return;
      }
      if (xhr.status >= 200 && xhr.status < 300 && body?.success !== false && body?.data?.files?.[0]) {
        onProgress(1);
        resolve(body.data.files[0]);
      } else {
        reject(new UploadError(xhr.status, body?.error?.code ?? 'ERROR', body?.error?.message ?? `Upload failed (${xhr.status})`));
      }
    };
    xhr.onerror = () => reject(new UploadError(0, 'NETWORK', 'The upload did not reach the server'));
    xhr.onabort = () => reject(new UploadError(0, 'ABORTED', 'Upload cancelled'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** What a stored file is, from its content type (detected from its bytes by the server). */
export function mediaKind(contentType: string): 'image' | 'video' | 'model' | 'other' {
  if (contentType.startsWith('image/')) return 'image';
  if (contentType.startsWith('video/')) return 'video';
  if (contentType.startsWith('model/') || contentType === 'application/zip') return 'model';
  return 'other';
}

/** The files a step takes as 3D models (the formats of GET /api/client/download-model/:type/:id). */
export const MODEL_ACCEPT = '.glb,.gltf,.obj,.usdz,model/gltf-binary,model/gltf+json,model/obj,model/vnd.usdz+zip';
export const MEDIA_ACCEPT = 'image/*,video/*';
