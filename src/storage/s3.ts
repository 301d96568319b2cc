import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type { Config } from '#config';
import { contentAddress, type FileStore } from './index';

const KEY = /^[a-f0-9]{64}$/;

/**
 * The file store on an S3-compatible bucket (`fileStore: s3://bucket/prefix`),
 * for several nodes. Same contract as the local store: content-addressed by
 * SHA-256, known only once the upload has streamed through. So a put streams
 * to `<prefix>tmp/<random>` (multipart, `fileStorePartSize` per part, never
 * held whole in memory), then copies it onto `<prefix><sha256>` and deletes
 * the temporary object. Copying is server-side, up to 5 GB per object.
 */
export function createS3FileStore(config: Config): FileStore {
  // the AWS SDK is loaded only for a store on S3 (it is a noticeable share of start-up otherwise)
  const { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } =
    require('@aws-sdk/client-s3') as typeof ClientS3;
  const { Upload } = require('@aws-sdk/lib-storage') as typeof LibStorage;
  const url = new URL(config.fileStore);
  const bucket = url.hostname;
  const prefix = url.pathname.replace(/^\/+/, '').replace(/([^/])$/, '$1/');
  const client = new S3Client({
    region: config.fileStoreRegion,
    forcePathStyle: config.fileStorePathStyle,
    ...(config.fileStoreEndpoint && { endpoint: config.fileStoreEndpoint }),
    ...(config.fileStoreAccessKeyId && {
      credentials: { accessKeyId: config.fileStoreAccessKeyId, secretAccessKey: config.fileStoreSecretAccessKey ?? '' },
    }),
  });
  const objectFor = (key: string) => {
    if (!KEY.test(key)) throw Object.assign(new Error(`invalid file key "${key}"`), { code: 'ENOENT' });
    return `${prefix}${key}`;
  };
  const head = async (object: string) => {
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: object }));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };
  return {
    async put(data) {
      const temp = `${prefix}tmp/${Date.now()}-${randomBytes(8).toString('hex')}`;
      const counter = contentAddress();
      const body = new PassThrough();
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: temp, Body: body },
        partSize: config.fileStorePartSize,
        queueSize: 2,
      });
      try {
        // a failing source (an upload over the limit) aborts the multipart upload: nothing is left behind
        await Promise.all([pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, counter.stream, body), upload.done()]);
      } catch (error) {
        await upload.abort().catch(() => undefined);
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: temp })).catch(() => undefined);
        throw error;
      }
      const { key, size } = counter.result();
      try {
        // same content already stored: the copy refreshes it (a young object, as the local store's touch)
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: objectFor(key),
            CopySource: `${bucket}/${encodeURIComponent(temp).replace(/%2F/g, '/')}`,
          }),
        );
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: temp })).catch(() => undefined);
      }
      return { key, size };
    },
    async get(key, range) {
      let answer;
      try {
        answer = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: objectFor(key), ...(range && { Range: `bytes=${range.start}-${range.end}` }) }),
        );
      } catch (error) {
        if (isMissing(error)) throw Object.assign(new Error(`file ${key} is missing`), { code: 'ENOENT' });
        throw error;
      }
      const total = answer.ContentRange ? Number(answer.ContentRange.split('/')[1]) : Number(answer.ContentLength);
      return { stream: answer.Body as Readable, size: total };
    },
    async stat(key) {
      const found = await head(objectFor(key));
      return found ? { size: Number(found.ContentLength), modifiedAt: found.LastModified ?? new Date(0) } : null;
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectFor(key) }));
    },
  };
}

function isMissing(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}
