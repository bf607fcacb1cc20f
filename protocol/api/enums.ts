/** Enumerations of the interface spec (section "Shared enumerations"), in the spec's order. */

/** Two-letter country codes (business_country, accepted_countries). */
export const COUNTRIES = [
  'AF', 'AX', 'AL', 'DZ', 'AS', 'AD', 'AO', 'AI', 'AQ', 'AG', 'AR', 'AM', 'AW', 'AU', 'AT', 'AZ', 'BS', 'BH', 'BD',
  'BB', 'BY', 'BE', 'BZ', 'BJ', 'BM', 'BT', 'BO', 'BQ', 'BA', 'BW', 'BV', 'BR', 'IO', 'BN', 'BG', 'BF', 'BI', 'KH',
  'CM', 'CA', 'CV', 'KY', 'CF', 'TD', 'CL', 'CN', 'CX', 'CC', 'CO', 'KM', 'CG', 'CD', 'CK', 'CR', 'CI', 'HR', 'CU',
  'CW', 'CY', 'CZ', 'DK', 'DJ', 'DM', 'DO', 'EC', 'EG', 'SV', 'GQ', 'ER', 'EE', 'ET', 'FK', 'FO', 'FJ', 'FI', 'FR',
  'GF', 'PF', 'TF', 'GA', 'GM', 'GE', 'DE', 'GH', 'GI', 'GR', 'GL', 'GD', 'GP', 'GU', 'GT', 'GG', 'GN', 'GW', 'GY',
  'HT', 'HM', 'VA', 'HN', 'HK', 'HU', 'IS', 'IN', 'ID', 'IR', 'IQ', 'IE', 'IM', 'IL', 'IT', 'JM', 'JP', 'JE', 'JO',
  'KZ', 'KE', 'KI', 'KP', 'KR', 'KW', 'KG', 'LA', 'LV', 'LB', 'LS', 'LR', 'LY', 'LI', 'LT', 'LU', 'MO', 'MK', 'MG',
  'MW', 'MY', 'MV', 'ML', 'MT', 'MH', 'MQ', 'MR', 'MU', 'YT', 'MX', 'FM', 'MD', 'MC', 'MN', 'ME', 'MS', 'MA', 'MZ',
  'MM', 'NA', 'NR', 'NP', 'NL', 'NC', 'NZ', 'NI', 'NE', 'NG', 'NU', 'NF', 'MP', 'NO', 'OM', 'PK', 'PW', 'PS', 'PA',
  'PG', 'PY', 'PE', 'PH', 'PN', 'PL', 'PT', 'PR', 'QA', 'RE', 'RO', 'RU', 'RW', 'BL', 'SH', 'KN', 'LC', 'MF', 'PM',
  'VC', 'WS', 'SM', 'ST', 'SA', 'SN', 'RS', 'SC', 'SL', 'SG', 'SX', 'SK', 'SI', 'SB', 'SO', 'ZA', 'GS', 'SS', 'ES',
  'LK', 'SD', 'SR', 'SJ', 'SZ', 'SE', 'CH', 'SY', 'TW', 'TJ', 'TZ', 'TH', 'TL', 'TG', 'TK', 'TO', 'TT', 'TN', 'TR',
  'TM', 'TC', 'TV', 'UG', 'UA', 'AE', 'GB', 'UM', 'UY', 'UZ', 'VU', 'VE', 'VN', 'VG', 'VI', 'WF', 'EH', 'YE', 'ZM',
  'ZW', 'US',
] as const;
export type Country = (typeof COUNTRIES)[number];

/** PaymentMethod. */
export const PAYMENT_METHODS = [
  'card', 'card_redirect', 'pay_later', 'wallet', 'bank_redirect', 'bank_transfer', 'crypto', 'bank_debit', 'reward',
  'real_time_payment', 'upi', 'voucher', 'gift_card', 'open_banking', 'mobile_payment', 'network_token',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** PaymentMethodType. */
export const PAYMENT_METHOD_TYPES = [
  'ach', 'affirm', 'afterpay_clearpay', 'alfamart', 'ali_pay', 'ali_pay_hk', 'alma', 'amazon_pay', 'paysera',
  'apple_pay', 'atome', 'bacs', 'bancontact_card', 'becs', 'benefit', 'bizum', 'blik', 'bluecode', 'boleto',
  'bca_bank_transfer', 'bni_va', 'breadpay', 'bri_va', 'bhn_card_network', 'card_redirect', 'cimb_va', 'classic',
  'credit', 'crypto_currency', 'cashapp', 'dana', 'danamon_va', 'debit', 'duit_now', 'efecty', 'eft', 'eps',
  'flexiti', 'fps', 'evoucher', 'giropay', 'givex', 'google_pay', 'go_pay', 'gcash', 'ideal', 'interac', 'indomaret',
  'klarna', 'kakao_pay', 'local_bank_redirect', 'mandiri_va', 'knet', 'mb_way', 'mobile_pay', 'momo', 'momo_atm',
  'multibanco', 'online_banking_thailand', 'online_banking_czech_republic', 'online_banking_finland',
  'online_banking_fpx', 'online_banking_poland', 'online_banking_slovakia', 'oxxo', 'pago_efectivo',
  'permata_bank_transfer', 'open_banking_uk', 'pay_bright', 'payjustnow', 'paypal', 'paze', 'pix',
  'pix_automatico_qr', 'pix_automatico_push', 'pay_safe_card', 'przelewy24', 'prompt_pay', 'pse', 'qris',
  'red_compra', 'red_pagos', 'samsung_pay', 'sepa', 'sepa_bank_transfer', 'sepa_guarenteed_debit', 'skrill',
  'sofort', 'swish', 'touch_n_go', 'trustly', 'twint', 'upi_collect', 'upi_intent', 'upi_qr', 'vipps', 'viet_qr',
  'venmo', 'walley', 'we_chat_pay', 'seven_eleven', 'lawson', 'mini_stop', 'family_mart', 'seicomart', 'pay_easy',
  'local_bank_transfer', 'mifinity', 'open_banking_pis', 'direct_carrier_billing', 'instant_bank_transfer',
  'instant_bank_transfer_finland', 'instant_bank_transfer_poland', 'revolut_pay', 'indonesian_bank_transfer',
  'open_banking', 'network_token',
] as const;
export type PaymentMethodType = (typeof PAYMENT_METHOD_TYPES)[number];

/** payment_experience. */
export const PAYMENT_EXPERIENCES = [
  'redirect_to_url', 'invoke_sdk_client', 'display_qr_code', 'one_click', 'link_wallet', 'invoke_payment_app',
  'display_wait_screen', 'collect_otp',
] as const;
export type PaymentExperience = (typeof PAYMENT_EXPERIENCES)[number];

/** card_networks. */
export const CARD_NETWORKS = [
  'Visa', 'Mastercard', 'AmericanExpress', 'JCB', 'DinersClub', 'Discover', 'CartesBancaires', 'UnionPay', 'Interac',
  'RuPay', 'Maestro', 'Star', 'Pulse', 'Accel', 'Nyce',
] as const;
export type CardNetwork = (typeof CARD_NETWORKS)[number];
