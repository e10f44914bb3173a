// Types of runtime-args.mjs, for the tests that import it.
export function benchHandlerOptions(args: readonly string[]): {
  options: { sessions?: false | { max: number } };
  port: number;
};
