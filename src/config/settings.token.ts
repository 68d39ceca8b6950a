/** DI token of the validated {@link QueueSettings} object. */
export const SETTINGS = Symbol('actions:settings');
