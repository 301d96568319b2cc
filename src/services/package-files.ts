import type { Deps } from '../deps';
import { AppError } from '../errors';
import type { PackageFiles } from './template-package';

/**
 * The file store as the packages, PDFs and reports see it. Until the client
 * file store (files table) lands, no file of a client can be described, so
 * media references are left out of exports and an archive listing files is
 * refused.
 */
export function packageFiles(_deps: Deps): PackageFiles {
  const unavailable = () => new AppError('ARCHIVE_INVALID', 'This server does not store files yet', { reason: 'UNEXPECTED_ENTRY' });
  return {
    async describe() {
      return [];
    },
    async open() {
      throw unavailable();
    },
    async put() {
      throw unavailable();
    },
    async insert(_trx, _author, items) {
      if (items.length > 0) throw unavailable();
      return [];
    },
  };
}
