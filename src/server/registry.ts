/**
 * The shared shape of the tool, prompt and resource registries: named entries in registration
 * order, each with a handle to enable, disable, update or remove it. Every change that alters a
 * list tells the {@link ListChangedNotifier}.
 */
import type { ListChangedNotifier, ListKind, Seen } from './list-changed.js';
import type { ViewCaller, ViewRule } from './views/visibility.js';

/**
 * A registered item's handle.
 *
 * @example
 * const beta = server.tool('beta', { description: 'Beta feature' }, () => 'hi');
 * beta.disable(); // hidden from tools/list; calls fail as for an unknown tool
 * beta.enable();
 * beta.update({ description: 'Now stable' });
 * beta.remove(); // the name is free again
 */
export interface RegisteredHandle<Update> {
  readonly name: string;
  readonly enabled: boolean;
  /** Show it again in lists and accept calls. */
  enable(): void;
  /** Hide it from every caller's lists; calls fail as for an unknown item. */
  disable(): void;
  /** Change its metadata or handler. */
  update(changes: Update): void;
  /** Remove it for good (the name becomes free). */
  remove(): void;
}

/** What every registry keeps per item, whatever else it keeps: its visibility rule (`visibleTo`). */
export interface Viewable {
  /** Who may see it; undefined: everyone. */
  readonly visible: ViewRule | undefined;
}

/** Who saw `value`: nobody when disabled or gone, else everyone or the callers its rule admits. */
function seenOf(entry: Entry<Viewable>): Seen {
  return entry.enabled ? (entry.value.visible ?? true) : false;
}

/** One entry; `E` is whatever the registry keeps per item. */
export class Entry<E> {
  enabled = true;
  constructor(
    readonly key: string,
    public value: E,
  ) {}
}

/**
 * A keyed, ordered collection with change notification.
 *
 * @example
 * const tools = new Registry<ToolEntry>('tools', notifier, 'tool');
 */
export class Registry<E extends Viewable> {
  private readonly entries = new Map<string, Entry<E>>();
  /** Entries (enabled or not) with a visibility rule: 0 keeps every lookup and list as it was. */
  private ruled = 0;

  constructor(
    private readonly kind: ListKind,
    private readonly notifier: ListChangedNotifier,
    private readonly noun: string,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** True when some entry has a visibility rule (then lists and lookups depend on the caller). */
  get hasRules(): boolean {
    return this.ruled > 0;
  }

  /** Add an entry; throws if the key is taken. */
  add(key: string, value: E): Entry<E> {
    if (this.entries.has(key)) throw new Error(`A ${this.noun} named "${key}" is already registered`);
    const entry = new Entry(key, value);
    this.entries.set(key, entry);
    if (value.visible !== undefined) this.ruled++;
    this.changed(false, seenOf(entry));
    return entry;
  }

  /** The enabled entry for `key`, if any, whoever asks (scope lookups, capabilities). */
  get(key: string): E | undefined {
    const entry = this.entries.get(key);
    return entry?.enabled ? entry.value : undefined;
  }

  /**
   * The enabled entry for `key` if `caller` may see it: a hidden entry is exactly as absent as a
   * missing one (the caller of this gets undefined either way, and answers the same error).
   */
  find(key: string, caller: ViewCaller | undefined): E | undefined {
    const entry = this.entries.get(key);
    if (!entry?.enabled) return undefined;
    const rule = entry.value.visible;
    return rule === undefined || rule(caller) ? entry.value : undefined;
  }

  /** Enabled entries, in registration order, whoever asks. */
  enabled(): E[] {
    const values: E[] = [];
    for (const entry of this.entries.values()) if (entry.enabled) values.push(entry.value);
    return values;
  }

  /**
   * Enabled entries `caller` may see, in registration order. Without any rule this is
   * {@link enabled}: no predicate runs, nothing more is allocated.
   */
  visible(caller: ViewCaller | undefined): E[] {
    if (this.ruled === 0) return this.enabled();
    const values: E[] = [];
    for (const entry of this.entries.values()) {
      if (!entry.enabled) continue;
      const rule = entry.value.visible;
      if (rule === undefined || rule(caller)) values.push(entry.value);
    }
    return values;
  }

  /** The first enabled entry for which `test` holds and that `caller` may see. */
  firstVisible(caller: ViewCaller | undefined, test: (value: E) => boolean): E | undefined {
    for (const entry of this.entries.values()) {
      if (!entry.enabled || !test(entry.value)) continue;
      const rule = entry.value.visible;
      if (rule === undefined || rule(caller)) return entry.value;
    }
    return undefined;
  }

  /** A handle over `entry`; `apply` merges an update into the stored value. */
  handle<U>(entry: Entry<E>, apply: (value: E, changes: U) => E): RegisteredHandle<U> {
    const isLive = (): boolean => this.entries.get(entry.key) === entry;
    return {
      name: entry.key,
      get enabled() {
        return entry.enabled && isLive();
      },
      enable: () => this.setEnabled(entry, true),
      disable: () => this.setEnabled(entry, false),
      update: (changes) => {
        this.assertLive(entry);
        const before = seenOf(entry);
        const wasRuled = entry.value.visible !== undefined;
        entry.value = apply(entry.value, changes);
        this.ruled += Number(entry.value.visible !== undefined) - Number(wasRuled);
        // A new rule counts as a change for everyone who saw the item before or sees it now.
        if (entry.enabled) this.changed(before, seenOf(entry));
      },
      remove: () => {
        if (this.entries.get(entry.key) !== entry) return;
        this.entries.delete(entry.key);
        if (entry.value.visible !== undefined) this.ruled--;
        if (entry.enabled) this.changed(seenOf(entry), false);
      },
    };
  }

  private setEnabled(entry: Entry<E>, enabled: boolean): void {
    this.assertLive(entry);
    if (entry.enabled === enabled) return;
    const before = seenOf(entry);
    entry.enabled = enabled;
    this.changed(before, seenOf(entry));
  }

  private assertLive(entry: Entry<E>): void {
    if (this.entries.get(entry.key) !== entry) {
      throw new Error(`The ${this.noun} "${entry.key}" was removed`);
    }
  }

  private changed(before: Seen, after: Seen): void {
    this.notifier.changed(this.kind, before, after);
  }
}
