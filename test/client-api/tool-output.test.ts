import { describe, expect, test } from 'vitest';
import {
  ToolOutputValidationError,
  type JsonSchemaValidator,
  defaultJsonSchemaValidator,
} from 'keel-mcp/client';
import { OutputSchemaCache } from '../../src/client/output-schemas.js';
import { useProcessGuard } from '../helpers/guard.js';
import { useClientFixture } from './fixtures/use-client-fixture.js';

useProcessGuard();
const { connected } = useClientFixture();

describe('structuredContent is checked against the tool outputSchema', () => {
  test('a valid structured result passes', async () => {
    const { client } = await connected();
    await client.listAllTools();
    const result = await client.callTool<{ sum: number }>('add', { a: 2, b: 3 });
    expect(result.structuredContent?.sum).toBe(5);
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  test('a result that violates the schema fails with ToolOutputValidationError', async () => {
    const { client } = await connected();
    await client.listAllTools();
    const error = await client.callTool('bad_output').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolOutputValidationError);
    const failure = error as ToolOutputValidationError;
    expect(failure.toolName).toBe('bad_output');
    expect(failure.issues).toEqual(['/sum: Instance type "string" is invalid. Expected "number".']);
    expect(failure.message).toMatch(/bad_output.*does not match its output schema/);
    expect(failure.result).toMatchObject({ structuredContent: { sum: 'not a number' } });
  });

  test('a tool with an outputSchema that returns no structuredContent fails', async () => {
    const { client } = await connected();
    await client.listAllTools();
    await expect(client.callTool('missing_output')).rejects.toThrow(/returned no structuredContent/);
  });

  test('a tool execution error (isError) is not validated', async () => {
    const { client } = await connected();
    await client.listAllTools();
    const result = await client.callTool('tool_error');
    expect(result.isError).toBe(true);
  });

  test('a draft-07 output schema (older SDKs) is validated as draft-07', async () => {
    const { client } = await connected();
    await client.listAllTools();
    await expect(client.callTool('draft07', { valid: true })).resolves.toMatchObject({
      structuredContent: { sum: 1 },
    });
    await expect(client.callTool('draft07')).rejects.toBeInstanceOf(ToolOutputValidationError);
  });

  test('validation can be switched off per call or per client', async () => {
    const { client } = await connected();
    await client.listAllTools();
    await expect(client.callTool('bad_output', {}, { validateOutput: false })).resolves.toBeDefined();
    const other = await connected({ validateToolOutput: false });
    await other.client.listAllTools();
    await expect(other.client.callTool('bad_output')).resolves.toBeDefined();
    await expect(other.client.callTool('bad_output', {}, { validateOutput: true })).rejects.toBeInstanceOf(
      ToolOutputValidationError,
    );
  });

  test('a tool not listed yet is not validated (its schema is unknown)', async () => {
    const { client } = await connected();
    await expect(client.callTool('bad_output')).resolves.toBeDefined();
  });

  test('tools/list_changed drops cached schemas; a new listing brings them back', async () => {
    const { client, session } = await connected();
    await client.listAllTools();
    const changed = new Promise<void>((resolve) => client.on('toolsChanged', () => resolve()));
    await session.notify('notifications/tools/list_changed');
    await changed;
    await expect(client.callTool('bad_output')).resolves.toBeDefined();
    await client.listTools();
    await expect(client.callTool('bad_output')).rejects.toBeInstanceOf(ToolOutputValidationError);
  });

  test('a custom validator replaces the built-in one, and a schema it cannot compile fails the call clearly', async () => {
    const compiled: unknown[] = [];
    const validator: JsonSchemaValidator = {
      compile(schema) {
        compiled.push(schema);
        if (schema.$schema) throw new Error('dialect not supported');
        return (value) => ((value as { sum?: unknown }).sum === 5 ? [] : ['/sum: must be 5']);
      },
    };
    const { client } = await connected({ outputValidator: validator });
    await client.listAllTools();
    await expect(client.callTool('add', { a: 2, b: 3 })).resolves.toBeDefined();
    await expect(client.callTool('add', { a: 1, b: 1 })).rejects.toThrow(/must be 5/);
    await expect(client.callTool('draft07', { valid: true })).rejects.toThrow(
      /cannot be compiled: dialect not supported/,
    );
    // Compiled once per tool, on first call, not on listing.
    expect(compiled).toHaveLength(2);
  });

  test('the built-in validator: readable issues, any dialect a server sends, broken schemas fail clearly', async () => {
    const old = defaultJsonSchemaValidator.compile({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      required: ['n'],
    });
    expect(old({ n: 1 })).toEqual([]);
    expect(old({})).toEqual(['/: Instance does not have required property "n".']);
    const cache = new OutputSchemaCache();
    const broken = { properties: { n: { $ref: '#/$defs/missing' } } };
    cache.remember([{ name: 'broken', inputSchema: { type: 'object' }, outputSchema: broken }], true);
    await expect(cache.check('broken', { content: [], structuredContent: { n: 1 } })).rejects.toThrow(
      /Tool broken has an output schema that cannot be applied: .*Unresolved \$ref/,
    );
  });
});
