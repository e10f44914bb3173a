/**
 * 2025-11-25: a request a task sends the client (an elicitation or sampling request arriving on a
 * `tasks/result` stream) carries `_meta["io.modelcontextprotocol/related-task"]`, and the
 * client's answer must carry it too. The handlers stay unaware: the answer gets the key here.
 */
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';

/** The `_meta` key that ties a message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/**
 * `result` with the request's related-task key copied into its `_meta` (unchanged when there is none).
 *
 * @example
 * return withRelatedTask(params, await handler(params, ctx));
 */
export function withRelatedTask(params: JsonObject, result: JsonObject): JsonObject {
  const meta = params._meta;
  if (!isJsonObject(meta) || !isJsonObject(meta[RELATED_TASK_META])) return result;
  const own = isJsonObject(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...own, [RELATED_TASK_META]: meta[RELATED_TASK_META] } };
}
