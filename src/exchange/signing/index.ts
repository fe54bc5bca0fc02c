export * from './credentials.js';
export * from './signers.js';
