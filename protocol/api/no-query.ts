import { z } from 'zod';

/**
 * The query of an operation that takes no query parameters. Every operation declares its query, this one when it
 * has none, so an unknown parameter is refused the same way everywhere (ERR_2004 naming it).
 */
export const NoQuery = z.strictObject({});
