import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ACTION_HANDLER_METADATA } from '../../handlers/action-handler.constants';
import type { QueuedAction } from '../../handlers/action-context.interface';
import type { ActionHandlerHost } from '../../handlers/action-handler.host';
import type { ChunkHandlerHost } from '../../handlers/chunk-handler.host';
import type { ActionHandlerOptions } from '../../handlers/action-handler-options.interface';
import { PermanentFailureError } from '../../handlers/permanent-failure.error';
import { backOffRequested, throwBackOff } from '../../handlers/retry-after.error';
import { refusedGroupState, refuseTransaction } from '../../handlers/refused-context';
import { jsonLengthExceeds, toResultJson } from '../outcome/handler-result';
import { describeThrown, isPermanentFailure } from '../outcome/thrown-value';
import { RETIRED_THREAD_EXIT_CODE, ThreadChunkOutcome, ThreadTask, ThreadTaskAnswer, ThreadTaskResult } from './thread-task';

/** A result's JSON text may take at most this fraction of the thread's heap (it is written once, then copied out). */
const RESULT_HEAP_SHARE = 4;

/** Handlers built in this thread, by `file#type` (built once, reused by later attempts). */
const handlers = new Map<string, Promise<ActionHandlerHost>>();

/** The attempt that code runs for, carried through its promises and timers: a stray error is charged to it. */
interface AttemptScope {
  label: string;
  /** Until the attempt's answer is decided: a stray error of its own then ends it as an error. */
  running: boolean;
  fail: (error: unknown) => void;
}
const attemptScope = new AsyncLocalStorage<AttemptScope>();
let attemptsRunning = 0;
let attemptsStarted = 0;
/** How long a retiring thread stays idle before it exits (ms); see retireIfIdle. */
const RETIRE_AFTER_IDLE_MS = 100;
/** A stray error was raised here: this thread is retired as soon as no attempt runs in it. */
let retiring = false;
const threadLogger = new Logger('HandlerThread');
/** ctx.transaction and ctx.groupState are refused here: the queue's DataSource and its connections live in the main thread. */
const IN_A_THREAD = "a handler thread (isolation: 'thread': the queue's database connections live in the main thread)";

process.on('unhandledRejection', (reason) => onStrayError('unhandled rejection', reason));
process.on('uncaughtException', (error) => onStrayError('uncaught exception', error));

/**
 * A stray error (a forgotten promise rejects, a timer throws): charged to the
 * attempt that left it while that attempt runs, else only logged (its
 * attempt ended already); never to another attempt. Idle threads run their
 * event loop (the pool's `atomics: 'disabled'`), so a leftover timer fires
 * here rather than in the next task. The thread is retired: it takes no new
 * task, and its answer says `retiring`, on which the service terminates it
 * and ends the attempt only once it has exited (the handler may still be
 * running: its promise is not settled). Idle, it exits by itself.
 */
function onStrayError(kind: string, error: unknown): void {
  const scope = attemptScope.getStore();
  const { message } = describeThrown(error);
  if (scope?.running) scope.fail(error);
  else
    threadLogger.error(
      `Stray ${kind} from ${scope ? `the handler of ${scope.label}, after its attempt ended` : 'no known handler'}: ${message}; retiring this thread`,
    );
  retiring = true;
  retireIfIdle();
}

/**
 * Exits once no attempt has run here for RETIRE_AFTER_IDLE_MS: time for the
 * main thread to read the answer of the attempt that just ended (it arrives on
 * another channel than the thread's exit, so an exit at once could beat it);
 * an attempt started meanwhile postpones it to that attempt's end. (An attempt
 * the pool hands over as the thread exits ends released, uncharged.)
 */
function retireIfIdle(): void {
  if (!retiring || attemptsRunning > 0) return;
  const startedBefore = attemptsStarted;
  setTimeout(() => {
    if (attemptsRunning === 0 && attemptsStarted === startedBefore) process.exit(RETIRED_THREAD_EXIT_CODE);
  }, RETIRE_AFTER_IDLE_MS);
}

/**
 * Runs one attempt in a handler thread (a Piscina worker; see
 * HandlerThreads). The thread never gets an abort: a timeout terminates it.
 * Errors come back described (name, message, stack, whether permanent), the
 * result as JSON text, so nothing that cannot cross a thread is sent. A
 * retiring thread, or a task the service withdrew, is refused untaken: the
 * handler does not run.
 */
export default async function runAttemptInThread(task: ThreadTask): Promise<ThreadTaskResult> {
  // Taken under compareExchange: the service withdraws a task the same way, so
  // it knows either that this thread runs it or that none ever will.
  if (retiring || Atomics.compareExchange(task.takenBy, 0, 0, threadId) !== 0) return { refused: true };
  const answer = await runTaken(task);
  return retiring ? { ...answer, retiring: true } : answer;
}

/** Runs a task this thread has taken; see runAttemptInThread. */
async function runTaken(task: ThreadTask): Promise<ThreadTaskAnswer> {
  const label = `action ${task.action.id} (${task.type}, attempt ${task.action.attempt})`;
  let scope: AttemptScope | undefined;
  attemptsRunning++;
  attemptsStarted++;
  try {
    const handler = await handlerFor(task.file, task.type);
    const signal = new AbortController().signal;
    const logger = new Logger(`${label}, thread`);
    const action: QueuedAction = { ...task.action, payload: JSON.parse(task.payloadJson) as QueuedAction['payload'] };
    const chunk = task.members
      ? [action, ...task.members.map((m): QueuedAction => ({ ...m.action, payload: JSON.parse(m.payloadJson) as QueuedAction['payload'] }))]
      : null;
    task.startedPort.postMessage('started');
    task.startedPort.close();
    const value = await new Promise<unknown>((resolve, reject) => {
      const own: AttemptScope = { label, running: true, fail: reject };
      scope = own;
      attemptScope.run(own, () => {
        try {
          const ctx = {
            signal,
            attempt: task.action.attempt,
            workerId: task.workerId,
            logger,
            backOff: throwBackOff,
            transaction: refuseTransaction(IN_A_THREAD),
            groupState: refusedGroupState(IN_A_THREAD),
          };
          Promise.resolve(chunk ? (handler as ChunkHandlerHost).handleChunk(chunk, ctx) : handler.handle(action, ctx)).then(resolve, reject);
        } catch (error) {
          reject(error);
        }
      });
    });
    // Writing a result as large as the heap is one allocation too big for
    // resourceLimits to stop gracefully: V8 then ends the whole process.
    const limit = Math.floor(getHeapStatistics().heap_size_limit / RESULT_HEAP_SHARE);
    if (chunk) return { ok: true, chunk: chunkAnswer(value, limit) };
    if (jsonLengthExceeds(value, limit)) {
      throw new PermanentFailureError(
        `handler result is over ${Math.round(limit / 1e6)} MB as JSON, more than 1/${RESULT_HEAP_SHARE} of this handler thread's heap: return less, or raise resourceLimits.maxOldGenerationSizeMb`,
      );
    }
    return { ok: true, resultJson: toResultJson(value) };
  } catch (error) {
    const { message, stack } = describeThrown(error);
    const permanent = isPermanentFailure(error);
    return { ok: false, message, stack, permanent, backOff: backOffRequested(error) };
  } finally {
    if (scope) scope.running = false;
    attemptsRunning--;
    retireIfIdle();
  }
}

/**
 * A chunk's outcomes as they cross back to the service: results as JSON
 * text, errors described (an outcome that is not one becomes an error).
 * @throws TypeError when `value` is not an array (the chunk's first action then fails).
 */
function chunkAnswer(value: unknown, limit: number): ThreadChunkOutcome[] {
  if (!Array.isArray(value))
    throw new TypeError(`handleChunk must return an array of outcomes (one per action, in order), not ${value === null ? 'null' : typeof value}`);
  return value.map((outcome: unknown): ThreadChunkOutcome => {
    try {
      const o = outcome as { ok?: unknown; result?: unknown; error?: unknown } | null;
      if (typeof o !== 'object' || o === null || typeof o.ok !== 'boolean')
        throw new TypeError('an outcome of handleChunk must be { ok: true, result } or { ok: false, error }');
      if (!o.ok) throw o.error;
      if (jsonLengthExceeds(o.result, limit))
        throw new PermanentFailureError(
          `handler result is over ${Math.round(limit / 1e6)} MB as JSON, more than 1/${RESULT_HEAP_SHARE} of this handler thread's heap`,
        );
      return { ok: true, resultJson: toResultJson(o.result) };
    } catch (error) {
      const { message, stack } = describeThrown(error);
      return { ok: false, message, stack, permanent: isPermanentFailure(error), backOff: backOffRequested(error) };
    }
  });
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
