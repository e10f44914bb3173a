export { MemoryTransport, createMemoryPair } from './memory-transport.js';
