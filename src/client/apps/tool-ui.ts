/**
 * Reading a listed tool's MCP Apps link: which UI renders it and who may call it.
 */
import { LEGACY_RESOURCE_URI_KEY, type AppVisibility } from '../../core/apps-wire.js';
import type { Tool } from '../../core/types/tools.js';

/**
 * A tool's MCP Apps link as a host uses it.
 *
 * @example
 * const ui: ToolUi = { resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'], forModel: true, forApp: true };
 */
export interface ToolUi {
  /** The `ui://` resource that renders the tool's results, if any. */
  readonly resourceUri: string | undefined;
  /** Who may call it (the spec's default, `['model', 'app']`, when the server gave none). */
  readonly visibility: readonly AppVisibility[];
  /** The agent sees and calls it (a host must leave it out of the model's tools otherwise). */
  readonly forModel: boolean;
  /** The server's UI may call it through the host (a host must refuse app calls otherwise). */
  readonly forApp: boolean;
}

const BOTH: readonly AppVisibility[] = Object.freeze(['model', 'app'] as AppVisibility[]);

/**
 * The MCP Apps link of `tool` (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`
 * that older servers write; `_meta.ui.visibility`), or undefined when it has none. A URI that is
 * not `ui://` is ignored, as the spec tells hosts; unknown visibility values are dropped.
 *
 * @example
 * for (const tool of await client.listAllTools()) {
 *   const ui = toolUi(tool);
 *   if (ui?.resourceUri) console.log(`${tool.name} renders ${ui.resourceUri}`);
 * }
 */
export function toolUi(tool: Pick<Tool, '_meta'>): ToolUi | undefined {
  const meta = tool?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const ui = isObject(meta.ui) ? meta.ui : undefined;
  const nested = ui?.resourceUri;
  const legacy = meta[LEGACY_RESOURCE_URI_KEY];
  const uri = typeof nested === 'string' ? nested : typeof legacy === 'string' ? legacy : undefined;
  const resourceUri = uri?.startsWith('ui://') === true ? uri : undefined;
  const given = Array.isArray(ui?.visibility)
    ? (ui.visibility as unknown[]).filter((v): v is AppVisibility => v === 'model' || v === 'app')
    : undefined;
  if (resourceUri === undefined && given === undefined) return undefined;
  const visibility = given === undefined || given.length === 0 ? BOTH : Object.freeze([...new Set(given)]);
  return {
    resourceUri,
    visibility,
    forModel: visibility.includes('model'),
    forApp: visibility.includes('app'),
  };
}

/**
 * The tools a host may give its model: all but the app-only ones (`visibility` without `model`).
 *
 * @example
 * const forAgent = modelTools(await client.listAllTools());
 */
export function modelTools<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter((tool) => toolUi(tool)?.forModel !== false);
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
