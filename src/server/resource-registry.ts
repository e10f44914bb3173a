/**
 * Resources and resource templates: registration, `resources/list`, `resources/templates/list`,
 * `resources/read`.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { Resource, ResourceTemplate } from '../core/types/resources.js';
import { checkScopes } from './auth/options.js';
import type { ListChangedNotifier } from './list-changed.js';
import { paginate } from './pagination.js';
import { Registry } from './registry.js';
import type {
  RegisteredResource,
  RegisteredTemplate,
  ResourceConfig,
  ResourceReader,
  ResourceReturn,
  ResourceUpdate,
  TemplateOptions,
  TemplateReader,
  TemplateUpdate,
} from './resource-types.js';
import type { ToolContext } from './tool-context.js';
import { UriTemplate } from './uri-template.js';
import { guarded } from './handler-errors.js';
import { resourceNotFound } from './resource-not-found.js';
import type { AuthInfo } from '../core/auth.js';
import {
  compileVisibility,
  visibleToToken,
  type RuleFailure,
  type ViewCaller,
  type ViewRule,
} from './views/visibility.js';

interface ResourceEntry {
  definition: Resource;
  read: ResourceReader;
  scopes: readonly string[] | undefined;
  visible: ViewRule | undefined;
}

/** @internal */
export interface TemplateEntry {
  definition: ResourceTemplate;
  template: UriTemplate;
  read: TemplateReader;
  options: TemplateOptions;
  scopes: readonly string[] | undefined;
  visible: ViewRule | undefined;
}

function scopesOf(config: ResourceConfig, what: string): readonly string[] | undefined {
  return config.scopes === undefined ? undefined : checkScopes(config.scopes, `${what} scopes`);
}

function metadata(config: ResourceConfig, template: boolean): ResourceConfig {
  const out: ResourceConfig = {};
  if (config.title !== undefined) out.title = config.title;
  if (config.description !== undefined) out.description = config.description;
  if (config.mimeType !== undefined) out.mimeType = config.mimeType;
  if (config.annotations !== undefined) out.annotations = config.annotations;
  if (!template && config.size !== undefined) out.size = config.size;
  if (config.icons !== undefined) out.icons = config.icons;
  if (config._meta !== undefined) out._meta = config._meta;
  return out;
}

function normalize(uri: string, mimeType: string | undefined, value: ResourceReturn): JsonObject {
  if (typeof value === 'string') {
    return { contents: [mimeType === undefined ? { uri, text: value } : { uri, mimeType, text: value }] };
  }
  if (typeof value !== 'object' || value === null || !Array.isArray(value.contents)) {
    throw new McpError(ErrorCode.InternalError, `The reader of ${uri} returned no contents`);
  }
  return value;
}

/** @internal Resources and templates of one McpServer. */
export class ResourceRegistry {
  private readonly resources: Registry<ResourceEntry>;
  private readonly templates: Registry<TemplateEntry>;

  constructor(
    notifier: ListChangedNotifier,
    private readonly ruleFailed: RuleFailure = () => undefined,
  ) {
    this.resources = new Registry('resources', notifier, 'resource');
    this.templates = new Registry('resources', notifier, 'resource template');
  }

  get size(): number {
    return this.resources.size + this.templates.size;
  }

  /** True when a resource or template has a `visibleTo` rule (lists and reads depend on the caller). */
  get hasRules(): boolean {
    return this.resources.hasRules || this.templates.hasRules;
  }

  private visibility(config: ResourceConfig, what: string): ViewRule | undefined {
    return compileVisibility(config.visibleTo, what, this.ruleFailed);
  }

  register(name: string, uri: string, config: ResourceConfig, read: ResourceReader): RegisteredResource {
    if (typeof uri !== 'string' || uri === '') throw new Error(`Resource "${name}" needs a non-empty uri`);
    if (typeof name !== 'string' || name === '') throw new Error(`Resource ${uri} needs a non-empty name`);
    const what = `resource ${uri}`;
    const entry = this.resources.add(uri, {
      definition: { uri, name, ...metadata(config, false) },
      read,
      scopes: scopesOf(config, what),
      visible: this.visibility(config, what),
    });
    let current = config;
    return this.resources.handle(entry, (stored, { read: nextRead, ...changes }: ResourceUpdate) => {
      // An `undefined` in the update clears that field; every reader of the config takes it as absent.
      current = { ...current, ...changes } as ResourceConfig;
      return {
        definition: { uri, name, ...metadata(current, false) },
        read: nextRead ?? stored.read,
        scopes: scopesOf(current, what),
        visible: this.visibility(current, what),
      };
    });
  }

  registerTemplate(
    name: string,
    uriTemplate: string,
    config: ResourceConfig,
    read: TemplateReader,
    options: TemplateOptions = {},
  ): RegisteredTemplate {
    if (typeof name !== 'string' || name === '')
      throw new Error('A resource template needs a non-empty name');
    const template = new UriTemplate(uriTemplate);
    for (const variable of Object.keys(options.complete ?? {})) {
      if (!template.variables.includes(variable)) {
        throw new Error(`Resource template "${name}" has no variable "${variable}" to complete`);
      }
    }
    const definitionOf = (c: ResourceConfig): ResourceTemplate => ({
      uriTemplate,
      name,
      ...metadata(c, true),
    });
    const what = `resource template "${name}"`;
    const entry = this.templates.add(name, {
      definition: definitionOf(config),
      template,
      read,
      options,
      scopes: scopesOf(config, what),
      visible: this.visibility(config, what),
    });
    let current = config;
    return this.templates.handle(entry, (stored, { read: nextRead, ...changes }: TemplateUpdate) => {
      // An `undefined` in the update clears that field; every reader of the config takes it as absent.
      current = { ...current, ...changes } as ResourceConfig;
      return {
        ...stored,
        definition: definitionOf(current),
        read: nextRead ?? stored.read,
        scopes: scopesOf(current, what),
        visible: this.visibility(current, what),
      };
    });
  }

  /** The enabled template whose `uriTemplate` is exactly `uriTemplate`, whoever asks (scope lookups). */
  templateByUri(uriTemplate: string): TemplateEntry | undefined {
    return this.templates.enabled().find((entry) => entry.definition.uriTemplate === uriTemplate);
  }

  /** The template `caller` may see whose `uriTemplate` is exactly `uriTemplate` (completion refs). */
  visibleTemplate(uriTemplate: string, caller: ViewCaller | undefined): TemplateEntry | undefined {
    return this.templates.firstVisible(caller, (entry) => entry.definition.uriTemplate === uriTemplate);
  }

  /**
   * Who may get updates of `uri` (legacy subscriptions, 2026-07-28 listens): undefined when
   * everyone may (no rules, or a URI nothing registered matches: notifications the server sends
   * for it go out as before), else a test of the caller: it may read `uri` as `read` resolves it.
   */
  updateView(uri: string): ((caller: ViewCaller) => boolean) | undefined {
    if (!this.hasRules) return undefined;
    const known =
      this.resources.get(uri) !== undefined ||
      this.templates.enabled().some((entry) => entry.template.match(uri) !== undefined);
    if (!known) return undefined;
    return (caller) =>
      this.resources.find(uri, caller) !== undefined ||
      this.templates.firstVisible(caller, (entry) => entry.template.match(uri) !== undefined) !== undefined;
  }

  hasCompleters(): boolean {
    return this.templates.enabled().some((entry) => Object.keys(entry.options.complete ?? {}).length > 0);
  }

  /** `resources/list` as `caller` sees it (hidden templates' `list` is not called). */
  async list(
    params: JsonObject,
    pageSize: number,
    ctx: ToolContext,
    caller?: ViewCaller,
  ): Promise<JsonObject> {
    const all: Resource[] = this.resources.visible(caller).map((entry) => entry.definition);
    for (const entry of this.templates.visible(caller)) {
      const list = entry.options.list;
      if (list) all.push(...(await guarded(ctx, entry.definition.uriTemplate, () => list(ctx))));
    }
    return paginate('resources', all, params, pageSize);
  }

  listTemplates(params: JsonObject, pageSize: number, caller?: ViewCaller): JsonObject {
    const all = this.templates.visible(caller).map((entry) => entry.definition);
    return paginate('resourceTemplates', all, params, pageSize);
  }

  /**
   * The scopes reading `uri` needs: its resource's, else the first matching template's (as `read`
   * picks). Given the caller's token, what a declarative `visibleTo` hides from it is skipped.
   */
  scopes(uri: string, auth?: AuthInfo): readonly string[] | undefined {
    const resource = this.resources.get(uri);
    if (resource && (auth === undefined || visibleToToken(resource.visible, auth))) return resource.scopes;
    return this.templates
      .enabled()
      .find(
        (entry) => entry.template.match(uri) && (auth === undefined || visibleToToken(entry.visible, auth)),
      )?.scopes;
  }

  /** The scopes completing the template `uriTemplate` needs (see {@link scopes}). */
  templateScopes(uriTemplate: string, auth?: AuthInfo): readonly string[] | undefined {
    const entry = this.templateByUri(uriTemplate);
    if (entry === undefined || (auth !== undefined && !visibleToToken(entry.visible, auth))) return undefined;
    return entry.scopes;
  }

  /** A resource or template `caller` may not see is skipped, as if it were not registered. */
  async read(params: JsonObject, ctx: ToolContext, caller?: ViewCaller): Promise<JsonObject> {
    const uri = params.uri;
    if (typeof uri !== 'string' || uri === '') {
      throw new McpError(ErrorCode.InvalidParams, 'resources/read: uri must be a non-empty string');
    }
    const resource = this.resources.find(uri, caller);
    if (resource) {
      const contents = await guarded(ctx, uri, () => resource.read(uri, ctx));
      return normalize(uri, resource.definition.mimeType, contents);
    }
    for (const entry of this.templates.visible(caller)) {
      const variables = entry.template.match(uri);
      if (variables) {
        const contents = await guarded(ctx, uri, () => entry.read(uri, variables, ctx));
        return normalize(uri, entry.definition.mimeType, contents);
      }
    }
    throw resourceNotFound(uri);
  }
}
