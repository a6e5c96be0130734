import { z } from './lazy-zod';

// Unit tools reach a ship unit only through its workflow id (signal, update, query), never its sandbox.
/** A ship unit's workflow id. */
export const unitIdField = () =>
  z
    .string()
    .regex(/^unit:/, 'a unit id starts with unit:')
    .describe('The unit\'s workflow id, e.g. "unit:acme/api:fix-login" or "unit:acme/api#42".');
