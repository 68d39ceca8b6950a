export * from './action-context.interface';
export * from './action-handler-options.interface';
export * from './action-handler.decorator';
export * from './action-handler.host';
export * from './permanent-failure.error';
export * from './handler-timeout.error';
export * from './invalid-handler.error';
export * from './action-handlers.registry';
