/**
 * Which tools run only as tasks, as far as this client knows: from `tools/list`
 * (`execution.taskSupport: "required"`, 2025-11-25) or learned from the server's refusal of a
 * plain call (`-32601` in 2025-11-25, `-32021` naming the tasks extension in 2026-07-28). A plain
 * `callTool` of such a tool runs it as a task; every other call costs one `Map` lookup.
 */
import type { Tool } from '../../core/types/tools.js';

/**
 * @example
 * const support = new TaskSupportCache();
 * support.remember(page.tools, true);
 * if (support.isRequired('render')) { ... }
 */
export class TaskSupportCache {
  private readonly byTool = new Map<string, 'optional' | 'required' | 'forbidden'>();

  /** A page of `tools/list`; `fresh` (a first page) forgets what earlier listings said. */
  remember(tools: readonly Tool[], fresh: boolean): void {
    if (fresh) this.byTool.clear();
    for (const tool of tools) {
      const support = tool.execution?.taskSupport;
      if (support === 'optional' || support === 'required' || support === 'forbidden')
        this.byTool.set(tool.name, support);
      else this.byTool.delete(tool.name);
    }
  }

  isRequired(name: string): boolean {
    return this.byTool.get(name) === 'required';
  }

  /** Whether a plain call of `name` may be retried as a task: not listed as forbidden/optional. */
  mayRequire(name: string): boolean {
    const known = this.byTool.get(name);
    return known === undefined || known === 'required';
  }

  learnRequired(name: string): void {
    this.byTool.set(name, 'required');
  }

  clear(): void {
    this.byTool.clear();
  }
}
