import { DynamicModule, ForwardReference, Type } from '@nestjs/common';

/**
 * Your handler modules: add each module that provides @ActionHandler classes
 * here, and `npm start` registers them. (The demo handlers are added separately,
 * unless DEMO_HANDLERS=false.)
 *
 * @example
 * export const HANDLER_MODULES = [BillingHandlersModule];
 */
export const HANDLER_MODULES: Array<Type<unknown> | DynamicModule | Promise<DynamicModule> | ForwardReference> = [];
