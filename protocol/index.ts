export * from './errors';
export * from './currency';
export * from './ids';
export * from './payments';
export type * from './frame-messages';
export type * from './runtime-manifest';
