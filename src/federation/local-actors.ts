// Our own actors: their key pairs (generated on first need if an account has none), their documents, and signers
// for requests made in their name. Keys are immutable once stored, so they are cached without invalidation.
import type { Config } from '../../config/schema.js';
import type { Clock } from '../clock.js';
import type { Account, AccountStore, LocalKeys } from '../store/accounts.js';
import { instanceActorDocument, personDocument } from './actor-document.js';
import type { Signer } from './http-client.js';
import { generateRsaKeyPair } from './keys.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { RsaSigner } from './rsa.js';
import { requestSigner } from './signer.js';

const KEY_CACHE_MAX = 10_000;

export class LocalActors {
  private readonly keys = new Map<string, Promise<LocalKeys>>();
  private instance!: Account;

  constructor(
    private readonly accounts: AccountStore,
    private readonly rsa: RsaSigner,
    readonly uris: LocalUris,
    private readonly config: Config,
    /** A member's live identity statements (original JSON), published in the actor's attachment. */
    private readonly statements: { live(accountId: string, now: Date): Promise<string[]> },
    private readonly clock: Clock,
  ) {}

  /** Creates the instance actor on first start (its username is the handle domain, which no member can take). */
  async start(): Promise<void> {
    this.instance = await this.accounts.ensureInstanceActor(this.config.localDomain, generateRsaKeyPair);
  }

  get instanceActor(): Account {
    return this.instance;
  }

  keysOf(accountId: string): Promise<LocalKeys> {
    let p = this.keys.get(accountId);
    if (!p) {
      p = this.loadKeys(accountId);
      p.catch(() => this.keys.delete(accountId));
      if (this.keys.size >= KEY_CACHE_MAX) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(accountId, p);
    }
    return p;
  }

  private async loadKeys(accountId: string): Promise<LocalKeys> {
    const stored = await this.accounts.localKeys(accountId);
    if (stored) return stored;
    const made = await this.accounts.setLocalKeysIfMissing(accountId, await generateRsaKeyPair());
    if (!made) throw new Error(`account ${accountId} is not local`);
    return made;
  }

  async document(a: Account): Promise<Record<string, unknown>> {
    const { publicKeyPem } = await this.keysOf(a.id);
    if (a.instanceActor) return instanceActorDocument(a, publicKeyPem, this.uris, this.config);
    return personDocument(a, publicKeyPem, this.uris, this.config, await this.statements.live(a.id, new Date(this.clock.now())));
  }

  keyIdOf(a: Account): string {
    return a.instanceActor ? this.uris.instanceKeyId : this.uris.keyId(a.username);
  }

  /** Signs as the given local account. */
  async signerFor(a: Account): Promise<Signer> {
    const { privateKeyPem } = await this.keysOf(a.id);
    return requestSigner(this.rsa, { keyId: this.keyIdOf(a), privateKeyPem });
  }

  /** Signs as the instance actor: every fetch of a remote document. */
  readonly instanceSigner: Signer = async (req) => (await this.signerFor(this.instance))(req);
}
