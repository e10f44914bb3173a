/**
 * Whether the tests run in CI (`CI` set to anything but empty, `false` or `0`, as `.ci/run` and
 * most CI services set it). Where CI promises a tool (redis-server, the Bun and Deno of
 * `.runtimes/`), a test that needs it fails there rather than skip: a skip in CI goes unnoticed.
 *
 * @example
 * if (!installed && runningInCi()) throw new Error('bun is required in CI');
 */
export function runningInCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
