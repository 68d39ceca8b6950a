/** Metadata key written by {@link ActionHandler}; values are {@link ActionHandlerOptions}. */
export const ACTION_HANDLER_METADATA = 'actions:handler';
