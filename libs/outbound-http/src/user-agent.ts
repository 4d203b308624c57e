/** Toolgate's version, sent as `User-Agent: toolgate/<version>` (a unit test keeps it equal to package.json). */
export const TOOLGATE_VERSION = '0.1.0';
export const USER_AGENT = `toolgate/${TOOLGATE_VERSION}`;
