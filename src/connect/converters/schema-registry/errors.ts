import { DataError } from '../../errors.js';
import type { SharesinkErrorOptions } from '../../../errors.js';

/**
 * A schema the registry holds that has no Connect equivalent (a recursive record, a bare "null"), or
 * that sharesink cannot read: the records written with it are bad records, each under errors.tolerance.
 */
export class UnsupportedSchemaError extends DataError {
  constructor(message: string, options: SharesinkErrorOptions = {}) {
    super(`schema not supported: ${message}`, options);
  }
}
