export { Client, type ClientOptions } from './client.js';
