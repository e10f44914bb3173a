export * from './standard-schema.js';
export * from './to-json-schema.js';
export * from './json-validator.js';
export * from './compile-schema.js';
export * from './check-json-schema.js';
