// uWS's native pub/sub for the public and hashtag streams of WebSocket clients: each such subscription is a uWS
// topic, and an event goes to all of a topic's sockets in ONE `app.publish`, written in C++ (corked, with uWS's own
// backpressure bound), instead of one JS send per socket. A topic's audience is everyone on it except the few the
// event is not for (viewers blocking, blocked by or muting the author) or who need their own payload (the author,
// viewers who favourited it...): those sockets leave the topic for the publish and rejoin right after, in the same
// synchronous pass, and the latter get their own frame with an ordinary send.
//
// Two uWS rules this relies on (checked by test/streaming/topics.test.ts): a socket's published frames are queued
// until the end of the loop's turn, and a socket that leaves its LAST topic loses what is queued for it; so every
// socket also holds an anchor topic that is never published to. A direct send first writes what is queued for the
// socket, so frames keep their order.
import type { Subscription } from './channels.js';
import type { StreamClient } from './hub.js';

/** A client whose public and hashtag subscriptions are uWS topics (WebSocket clients). */
export interface TopicClient extends StreamClient {
  /** The uWS subscription itself, nothing else. */
  joinTopic(topic: string): void;
  leaveTopic(topic: string): void;
}

export function isTopicClient(c: StreamClient): c is TopicClient {
  return 'joinTopic' in c;
}

/** Topics are subscriptions of the public and hashtag channels, the same for every viewer but for filtering. */
export function isTopicChannel(channel: string): boolean {
  return channel.startsWith('public') || channel.startsWith('hashtag');
}

/** Never published to: keeps each socket's uWS subscriber (and what is queued for it) alive. */
export const ANCHOR_TOPIC = 'anchor';

/**
 * The topic's name in uWS: the subscription key with `/` (uWS's level separator) and the `+`/`#` wildcards escaped,
 * so that a hashtag stream named `#` cannot become a wildcard that hears every topic.
 */
function topicName(sub: Subscription): string {
  return `s:${encodeURIComponent(sub.key)}`;
}

export interface Topic {
  readonly name: string;
  readonly sub: Subscription;
  /** Its clients by account: exclusion is decided once per account. */
  readonly members: Map<string, Set<TopicClient>>;
}

export type Publish = (topic: string, message: string) => void;

export class StreamTopics {
  private readonly topics = new Map<string, Topic>();
  private publisher: Publish | null = null;

  /** The WebSocket server's publish (uWS `app.publish`), given once the server is built. */
  attach(publish: Publish): void {
    this.publisher = publish;
  }

  get active(): Iterable<Topic> {
    return this.topics.values();
  }

  join(c: TopicClient, sub: Subscription): void {
    let t = this.topics.get(sub.key);
    if (!t) this.topics.set(sub.key, (t = { name: topicName(sub), sub, members: new Map() }));
    let set = t.members.get(c.accountId);
    if (!set) t.members.set(c.accountId, (set = new Set()));
    if (set.has(c)) return;
    set.add(c);
    c.joinTopic(t.name);
  }

  /** `closing`: the socket is gone (uWS already dropped its subscriptions). */
  leave(c: TopicClient, sub: Subscription, closing = false): void {
    const t = this.topics.get(sub.key);
    const set = t?.members.get(c.accountId);
    if (!t || !set?.delete(c)) return;
    if (!closing) c.leaveTopic(t.name);
    if (set.size === 0) t.members.delete(c.accountId);
    if (t.members.size === 0) this.topics.delete(sub.key);
  }

  /**
   * Publishes `frame` to every socket of the topic but those of `left` accounts (not shown the event, or shown it
   * with a payload of their own, which the caller sends after). Synchronous: the excluded sockets are back on the
   * topic before anything else runs.
   */
  publish(t: Topic, frame: string, left: readonly string[]): void {
    if (!this.publisher) throw new Error('streaming topics published before the WebSocket server was attached');
    for (const a of left) for (const c of t.members.get(a) ?? []) c.leaveTopic(t.name);
    try {
      this.publisher(t.name, frame);
    } finally {
      for (const a of left) for (const c of t.members.get(a) ?? []) c.joinTopic(t.name);
    }
  }
}
