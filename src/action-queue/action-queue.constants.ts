/** DI token of the {@link ActionQueueModuleOptions} given to forRoot/forRootAsync. */
export const ACTION_QUEUE_OPTIONS = Symbol('actions:module-options');
