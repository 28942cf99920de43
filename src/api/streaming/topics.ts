// uWS's native pub/sub for the public and hashtag streams of WebSocket clients: each such subscription is a uWS
// topic, and a status goes to all of a topic's sockets in ONE `app.publish`, written by uWS in C++ (with its own
// backpressure bound, closeOnBackpressureLimit), instead of one JS send per socket. A topic's audience is everyone on
// it except the few the status is not for (blocks either way, mutes, a hide filter, another language) or who need a
// payload of their own (the author, viewers with flags or a warn filter): those sockets leave the topic for the
// publish and rejoin right after, in the same synchronous pass, and the latter get their own frame with a send.
//
// Two uWS rules this relies on (test/streaming/topics.test.ts): a socket's published frames are queued until the end
// of the loop's turn, and a socket that leaves its LAST topic loses what is queued for it; so every socket also holds
// an anchor topic that is never published to. A direct send first writes what is queued for the socket, so frames
// keep their order.
import type { Subscription } from './channels.js';

/** A client whose public and hashtag subscriptions are uWS topics (WebSocket clients; a StreamClient too). */
export interface TopicClient {
  readonly accountId: string;
  /** The uWS subscription itself, nothing else. */
  joinTopic(topic: string): void;
  leaveTopic(topic: string): void;
}

export function isTopicClient<C extends { readonly accountId: string }>(c: C): c is C & TopicClient {
  return 'joinTopic' in c;
}

/** Topics are subscriptions of the public and hashtag channels, the same for every viewer but for filtering. */
export function isTopicChannel(channel: string): boolean {
  return channel.startsWith('public') || channel.startsWith('hashtag');
}

/** Never published to: keeps each socket's uWS subscriber (and what is queued for it) alive. */
export const ANCHOR_TOPIC = 'anchor';

export interface Topic<C extends TopicClient = TopicClient> {
  /** Its name in uWS: the key escaped, so that `/`, `+` or `#` in a tag never become levels or wildcards. */
  readonly name: string;
  readonly sub: Subscription;
  /** Its clients by account: who is left out is decided once per account. */
  readonly members: Map<string, Set<C>>;
}

export type Publish = (topic: string, message: string) => void;

/** C: what the hub's clients are besides (StreamClient), so that a topic's members can be sent to directly. */
export class StreamTopics<C extends TopicClient = TopicClient> {
  private readonly topics = new Map<string, Topic<C>>();
  private publisher: Publish | null = null;
  /** Off: every socket is written to one by one (the streaming bench compares both; set before any socket opens). */
  enabled = true;

  /** The WebSocket server's publish (uWS `app.publish`), given once the server is built. */
  attach(publish: Publish): void {
    this.publisher = publish;
  }

  get active(): Iterable<Topic<C>> {
    return this.topics.values();
  }

  join(c: C, sub: Subscription): void {
    if (!this.enabled) return;
    let t = this.topics.get(sub.key);
    if (!t) this.topics.set(sub.key, (t = { name: `s:${encodeURIComponent(sub.key)}`, sub, members: new Map() }));
    let set = t.members.get(c.accountId);
    if (!set) t.members.set(c.accountId, (set = new Set()));
    if (set.has(c)) return;
    set.add(c);
    c.joinTopic(t.name);
  }

  /** `closing`: the socket is gone (uWS already dropped its subscriptions). */
  leave(c: C, sub: Subscription, closing = false): void {
    const t = this.topics.get(sub.key);
    const set = t?.members.get(c.accountId);
    if (!t || !set?.delete(c)) return;
    if (!closing) c.leaveTopic(t.name);
    if (set.size === 0) t.members.delete(c.accountId);
    if (t.members.size === 0) this.topics.delete(sub.key);
  }

  /**
   * Publishes `frame` to every socket of the topic but those of the `left` accounts (not shown the event, or shown it
   * with a payload of their own, which the caller sends after). Synchronous: the excluded sockets are back on the
   * topic before anything else runs.
   */
  publish(t: Topic<C>, frame: string, left: readonly string[]): void {
    if (!this.publisher) throw new Error('streaming topics published before the WebSocket server was attached');
    for (const a of left) for (const c of t.members.get(a) ?? []) c.leaveTopic(t.name);
    try {
      this.publisher(t.name, frame);
    } finally {
      for (const a of left) for (const c of t.members.get(a) ?? []) c.joinTopic(t.name);
    }
  }
}
