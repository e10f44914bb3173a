/**
 * The shared shape of the tool, prompt and resource registries: named entries in registration
 * order, each with a handle to enable, disable, update or remove it. Every change that alters a
 * list tells the {@link ListChangedNotifier}.
 */
import type { ListChangedNotifier, ListKind } from './list-changed.js';

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
  /** Hide it from lists; calls fail as for an unknown item. */
  disable(): void;
  /** Change its metadata or handler. */
  update(changes: Update): void;
  /** Remove it for good (the name becomes free). */
  remove(): void;
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
export class Registry<E> {
  private readonly entries = new Map<string, Entry<E>>();

  constructor(
    private readonly kind: ListKind,
    private readonly notifier: ListChangedNotifier,
    private readonly noun: string,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Add an entry; throws if the key is taken. */
  add(key: string, value: E): Entry<E> {
    if (this.entries.has(key)) throw new Error(`A ${this.noun} named "${key}" is already registered`);
    const entry = new Entry(key, value);
    this.entries.set(key, entry);
    this.changed();
    return entry;
  }

  /** The enabled entry for `key`, if any. */
  get(key: string): E | undefined {
    const entry = this.entries.get(key);
    return entry?.enabled ? entry.value : undefined;
  }

  /** Enabled entries, in registration order. */
  enabled(): E[] {
    const values: E[] = [];
    for (const entry of this.entries.values()) if (entry.enabled) values.push(entry.value);
    return values;
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
        entry.value = apply(entry.value, changes);
        if (entry.enabled) this.changed();
      },
      remove: () => {
        if (this.entries.get(entry.key) !== entry) return;
        this.entries.delete(entry.key);
        if (entry.enabled) this.changed();
      },
    };
  }

  private setEnabled(entry: Entry<E>, enabled: boolean): void {
    this.assertLive(entry);
    if (entry.enabled === enabled) return;
    entry.enabled = enabled;
    this.changed();
  }

  private assertLive(entry: Entry<E>): void {
    if (this.entries.get(entry.key) !== entry) {
      throw new Error(`The ${this.noun} "${entry.key}" was removed`);
    }
  }

  private changed(): void {
    this.notifier.changed(this.kind);
  }
}
