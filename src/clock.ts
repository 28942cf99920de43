// Time as the application reads it where expiry matters (authorization codes), so tests can move it.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
