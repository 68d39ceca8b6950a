import 'reflect-metadata';
import { getHeapStatistics } from 'node:v8';
import { Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ACTION_HANDLER_METADATA } from '../../handlers/action-handler.constants';
import type { QueuedAction } from '../../handlers/action-context.interface';
import type { ActionHandlerHost } from '../../handlers/action-handler.host';
import type { ActionHandlerOptions } from '../../handlers/action-handler-options.interface';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { jsonLengthExceeds, toResultJson } from '../handler-result';
import { describeThrown, isPermanentFailure } from '../thrown-value';
import type { ThreadTask, ThreadTaskResult } from './thread-task';

/** A result's JSON text may take at most this fraction of the thread's heap (it is written once, then copied out). */
const RESULT_HEAP_SHARE = 4;

/** Handlers built in this thread, by `file#type` (built once, reused by later attempts). */
const handlers = new Map<string, Promise<ActionHandlerHost>>();

/**
 * Runs one attempt in a handler thread (a Piscina worker; see
 * HandlerThreads). The thread never gets an abort: a timeout terminates it.
 * Errors come back described (name, message, stack, whether permanent), the
 * result as JSON text, so nothing that cannot cross a thread is sent.
 */
export default async function runAttemptInThread(task: ThreadTask): Promise<ThreadTaskResult> {
  try {
    const handler = await handlerFor(task.file, task.type);
    const signal = new AbortController().signal;
    const logger = new Logger(`action ${task.action.id} (${task.type}, attempt ${task.action.attempt}, thread)`);
    const action: QueuedAction = { ...task.action, payload: JSON.parse(task.payloadJson) as QueuedAction['payload'] };
    task.startedPort.postMessage('started');
    task.startedPort.close();
    const value = await handler.handle(action, { signal, attempt: task.action.attempt, workerId: task.workerId, logger });
    // Writing a result as large as the heap is one allocation too big for
    // resourceLimits to stop gracefully: V8 then ends the whole process.
    const limit = Math.floor(getHeapStatistics().heap_size_limit / RESULT_HEAP_SHARE);
    if (jsonLengthExceeds(value, limit)) {
      throw new PermanentFailureError(
        `handler result is over ${Math.round(limit / 1e6)} MB as JSON, more than 1/${RESULT_HEAP_SHARE} of this handler thread's heap: return less, or raise resourceLimits.maxOldGenerationSizeMb`,
      );
    }
    return { ok: true, resultJson: toResultJson(value) };
  } catch (error) {
    const { message, stack } = describeThrown(error);
    const permanent = isPermanentFailure(error);
    return { ok: false, message, stack, permanent };
  }
}

function handlerFor(file: string, type: string): Promise<ActionHandlerHost> {
  const key = `${file}#${type}`;
  let handler = handlers.get(key);
  if (!handler) {
    handler = build(file, type);
    handlers.set(key, handler);
  }
  return handler;
}

/** Builds the handler class of `type` that `file` exports: through a Nest module of that file that provides it, else with `new`. */
async function build(file: string, type: string): Promise<ActionHandlerHost> {
  const exported = Object.values(require(file) as Record<string, unknown>).filter((v): v is Type<ActionHandlerHost> => typeof v === 'function');
  const handlerClass = exported.find((c) => (Reflect.getMetadata(ACTION_HANDLER_METADATA, c) as ActionHandlerOptions | undefined)?.type === type);
  if (!handlerClass) throw new PermanentFailureError(`${file} exports no handler class of type "${type}" (export the class to run it in a thread)`);
  const module = exported.find((c) => ((Reflect.getMetadata('providers', c) as unknown[] | undefined) ?? []).includes(handlerClass));
  if (!module) return new handlerClass();
  const app = await NestFactory.createApplicationContext(module, { logger: ['error', 'warn'] });
  return app.get(handlerClass);
}
