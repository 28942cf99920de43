// Callbacks handed to a library (uWS, busboy, a stream) run on the library's stack: a throw there reaches no request
// handler and, uncaught, ends the process. Each such callback is wrapped so that a throw goes to its request's error
// path instead (an answer and a log line), however unexpected the bug behind it.

/** fn, except that a throw is handed to onThrow with fn's arguments (its result returned in fn's place). */
export function guard<A extends unknown[], R>(fn: (...args: A) => R, onThrow: (e: unknown, args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    try {
      return fn(...args);
    } catch (e) {
      return onThrow(e, args);
    }
  };
}
