import type { Mode } from '../../../../protocol/ids';
import { ApiError } from '../shared/errors';

/** Live events carry real customers' payments: they go over https only. Test endpoints may be plain http (local receivers). */
export function requireUrlForMode(url: string, mode: Mode): void {
  if (mode === 'live' && !url.toLowerCase().startsWith('https://')) {
    throw new ApiError('ERR_2003', 'A live webhook endpoint must be an https URL.', { fieldName: 'url' });
  }
}
