// The version clients see. Mastodon clients gate features on the leading Mastodon version, so we report the API
// level we implement and name ourselves after it, as other compatible servers do.
export const STOA_VERSION = '0.1.0';
export const MASTODON_API_VERSION = '4.3.0';
export const VERSION_STRING = `${MASTODON_API_VERSION} (compatible; Stoa ${STOA_VERSION})`;
// api_versions.mastodon for 4.3 (clients use it to gate newer endpoints).
export const MASTODON_API_LEVEL = 2;
