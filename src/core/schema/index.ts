export * from './standard-schema.js';
export * from './to-json-schema.js';
export * from './json-validator.js';
export * from './compile-schema.js';
