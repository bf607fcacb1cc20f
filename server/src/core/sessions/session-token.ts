/** Operator session tokens: `ops_` and 48 base62 characters; only their SHA-256 is stored. */
export const SESSION_TOKEN_PATTERN = /^ops_[A-Za-z0-9]{48}$/;
export const SESSION_TOKEN_SECRET_LENGTH = 48;
