/** Metadata key written by {@link ActionHandler}; values are {@link ActionHandlerOptions}. */
export const ACTION_HANDLER_METADATA = 'actions:handler';
/** Metadata key: the file that declares a thread-isolated handler (loaded again in its threads). */
export const ACTION_HANDLER_FILE_METADATA = 'actions:handler_file';
