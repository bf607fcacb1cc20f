/**
 * Card validation and formatting for the hosted frame: brand detection, Luhn, as-you-type
 * formatting and field validation. Pure functions, no dependencies.
 */
export {
  CARD_BRANDS,
  DEFAULT_GAPS,
  MAX_CARD_NUMBER_LENGTH,
  canMatchAnyBrand,
  detectBrand,
  detectBrands,
  getCardBrandSpec,
  type CardBrand,
  type CardBrandSpec,
} from './card-brands';
export { passesLuhn } from './luhn';
export { formatCardNumber, formatExpiry, formatKeepingCaret, type FieldText } from './format';
export {
  MAX_EXPIRY_YEARS_AHEAD,
  MAX_HOLDER_NAME_LENGTH,
  validateCardNumber,
  validateCvc,
  validateExpiry,
  validateHolderName,
  type CardNumberError,
  type CardNumberOptions,
  type CardNumberValidation,
  type CvcError,
  type CvcValidation,
  type ExpiryError,
  type ExpiryValidation,
  type HolderNameError,
  type HolderNameValidation,
} from './validate';
