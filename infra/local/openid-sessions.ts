/**
 * Where the local OpenID provider keeps its sessions, grants, codes and tokens: in the process's
 * memory, each until it expires (a restart signs everyone out; accounts are kept apart, in
 * portal-accounts.ts). oidc-provider's own in-memory adapter is for quick starts and says so on
 * every start; this one is ours to keep the stack's output to what it means to print.
 */
import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';

/** A store of every model's items in one map of its own, for one provider. */
export function memorySessions(): AdapterConstructor {
  const items = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string) => {
    const item = items.get(key);
    if (item && item.expiresAt <= Date.now()) items.delete(key);
    return item && item.expiresAt > Date.now() ? item : undefined;
  };
  return class MemorySessions implements Adapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`;
    }

    private findWhere(matches: (payload: AdapterPayload) => boolean) {
      for (const [key, item] of items) {
        if (key.startsWith(`${this.model}:`) && matches(item.payload)) return live(key)?.payload;
      }
      return undefined;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
      items.set(this.key(id), { payload, expiresAt });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return live(this.key(id))?.payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.findWhere((payload) => payload.uid === uid);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.findWhere((payload) => payload.userCode === userCode);
    }

    async consume(id: string): Promise<void> {
      const item = live(this.key(id));
      if (item) item.payload = { ...item.payload, consumed: Math.floor(Date.now() / 1000) };
    }

    async destroy(id: string): Promise<void> {
      items.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, item] of items) if (item.payload.grantId === grantId) items.delete(key);
    }
  };
}
