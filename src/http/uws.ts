// Loads uWebSockets.js and tells whether the native binding is in use. The package silently falls back to a
// slow pure-JS shim when its binary cannot load; that must never pass unnoticed (a test asserts nativeUws).
import { createRequire } from 'node:module';
import type * as UwsTypes from 'uWebSockets.js';

const require = createRequire(import.meta.url);
export const uws = require('uWebSockets.js') as typeof UwsTypes;

export const nativeUws: boolean = Object.keys(require.cache).some((k) => k.endsWith('.node') && /[\\/]uws_[^\\/]+\.node$/.test(k));

export type HttpResponse = UwsTypes.HttpResponse;
export type HttpRequest = UwsTypes.HttpRequest;
export type TemplatedApp = UwsTypes.TemplatedApp;
export type ListenSocket = UwsTypes.us_listen_socket;
export type WebSocket<T> = UwsTypes.WebSocket<T>;
export type WebSocketBehavior<T> = UwsTypes.WebSocketBehavior<T>;
export type UpgradeContext = UwsTypes.us_socket_context_t;
