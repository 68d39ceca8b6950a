/** DI token of the validated {@link Settings} object. */
export const SETTINGS = Symbol('actions:settings');
