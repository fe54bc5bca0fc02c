export * from './exchange-error.js';
export * from './catalogue.js';
export * from './transport-errors.js';
export * from './client-errors.js';
export * from './family-errors.js';
