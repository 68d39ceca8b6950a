import type { BackOffRequest } from '../../handlers/retry-after.error';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import type { QueuedAction } from '../../handlers/action-context.interface';
import { stringifyJson } from '../../http/json-text';
import type { RegisteredHandler } from '../../handlers/action-handlers.registry';
import { QueueSettings } from '../../config/settings';
import { SETTINGS } from '../../config/settings.token';
import { shutdownStep, THREAD_STOP_TIMEOUT_MS } from '../../shutdown-steps';
import { SerializedResult } from '../outcome/handler-result';
import type { ChunkOutcome } from '../../handlers/chunk-handler.host';
import { RETIRED_THREAD_EXIT_CODE, TASK_WITHDRAWN, ThreadChunkOutcome, ThreadTask, ThreadTaskResult } from './thread-task';
import { ThreadExits } from './thread-exits';

/**
 * Most threads of one handler type, whatever WORKER_CONCURRENCY (up to 1 000).
 * Each thread is a V8 isolate of its own: an idle one adds 7.8 MiB of RSS
 * before it loads the handler's file (Node 20 on this project's 2-core
 * machine, 16 threads started at once, three runs: 124.5-124.7 MiB), so 64
 * threads cost at least 500 MiB for one type, and a type allowed 1 000 would
 * cost 7.6 GiB. Each new thread also loads the handler's file and module
 * first, most of a second here (docs/handlers.md).
 */
const MAX_THREADS_PER_TYPE = 64;
/** How long an idle handler thread is kept (ms). */
const THREAD_IDLE_TIMEOUT_MS = 60_000;
/** The thread entry, next to this file (.js when compiled, .ts under ts-node). */
const THREAD_ENTRY = join(__dirname, `handler-thread.entry${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

/**
 * A failed attempt of a thread-isolated handler, as its thread described it
 * (the message already starts with the thread error's own name).
 */
export class ThreadTaskError extends Error {
  /** Whether the handler threw PermanentFailureError. */
  declare readonly permanent: boolean;
  /** The back-off the handler asked for (it threw RetryAfterError), or null. */
  declare readonly backOff: BackOffRequest | null;

  constructor(message: string, threadStack: string | null, permanent: boolean, backOff: BackOffRequest | null = null) {
    super(message);
    Object.defineProperty(this, 'permanent', { value: permanent, enumerable: false });
    Object.defineProperty(this, 'backOff', { value: backOff, enumerable: false });
    if (threadStack) this.stack = `Error: ${message}\n${threadStack}`;
  }
}

/** Piscina's error for a task whose thread exited while it ran; the code says why. */
const RETIRED_THREAD_EXIT = new RegExp(`worker exited with code: ${RETIRED_THREAD_EXIT_CODE}$`);
/**
 * Piscina's errors for a task whose thread exited or was terminated before it
 * answered: for a task no thread took, its thread was retiring (terminated
 * after another attempt's stray error, or exiting idle).
 */
const THREAD_GONE = /^(worker exited with code: \d+|Terminating worker thread)$/;

/**
 * An attempt the pool gave to a thread that was retiring after another
 * attempt's stray error: not this attempt's fault, so it is handed to another
 * thread (its handler never ran) or released, uncharged.
 */
export class ThreadRetiredError extends Error {
  /** @param handlerStarted whether the handler had started in that thread (then the attempt cannot simply be handed to another). */
  constructor(readonly handlerStarted: boolean) {
    super('its handler thread retired after another action left a stray error there; released, not charged');
  }
}

/**
 * How many times one attempt is handed to the pool when the thread it got was
 * retiring: each retiring thread takes at most one hand-over before it exits,
 * so more than a few in a row means threads keep retiring; then the attempt
 * is released (ThreadRetiredError).
 */
const MAX_HAND_OVERS = 3;

/**
 * Runs the attempts of handlers declared with `isolation: 'thread'`, each type
 * in a pool of worker threads of its own (Piscina, with the handler's
 * `resourceLimits`). An aborted attempt (timeout, cancel, shutdown, lost
 * lease, self-fencing) terminates its thread, so the handler really stops; a
 * thread that dies (out of memory) ends only its attempt. Idle threads run
 * their event loop (`atomics: 'disabled'`: with Piscina's default they sleep
 * in Atomics.wait, so a handler's leftover timer fired during the next task
 * and killed an innocent action); a stray error in a thread is charged to the
 * attempt that left it while it runs, else logged, and the thread then
 * retires instead of being reused (handler-thread.entry.ts).
 *
 * One holder per group (G2): an attempt that ends other than by its thread's
 * answer of a handler that settled (stray error, timeout, abort, a thread
 * that died) ends only once that thread has exited (ThreadExits), however
 * long that takes; until then the attempt runs on and its lease is renewed.
 */
@Injectable()
export class HandlerThreads implements OnApplicationShutdown {
  private readonly logger = new Logger(HandlerThreads.name);
  private readonly pools = new Map<string, Piscina<ThreadTask, ThreadTaskResult>>();
  private readonly exits = new ThreadExits((message) => this.logger.warn(message));

  constructor(@Inject(SETTINGS) private readonly settings: QueueSettings) {}

  /**
   * Runs one attempt of `registered` in a thread.
   * @param onStarted called when the handler starts in its thread (once the thread has loaded and built it).
   * @returns the result, serialised in the thread; only once the thread has
   *   exited when it had to be stopped (see the class comment).
   * @throws ThreadTaskError for a handler error or a thread that died;
   *   ThreadRetiredError when its thread retired under it (another action's
   *   stray error); the abort reason when `signal` aborted.
   */
  async run(
    registered: RegisteredHandler,
    action: QueuedAction,
    workerId: string,
    signal: AbortSignal,
    onStarted: () => void = () => undefined,
  ): Promise<SerializedResult> {
    // As text: structured cloning a deeply nested payload would overflow the stack.
    const payloadJson = stringifyJson(action.payload) ?? '{}';
    for (let handOver = 1; ; handOver++) {
      try {
        const answer = await this.runOnce(registered, action, payloadJson, workerId, signal, onStarted);
        if (!('resultJson' in answer)) throw new ThreadTaskError('handler thread answered an action with a chunk', null, false);
        return new SerializedResult(answer.resultJson);
      } catch (error) {
        // A thread that retired as the pool handed it this attempt never started
        // the handler (handler-thread.entry.ts exits only with no attempt started
        // since it went idle): hand the attempt to a fresh thread instead.
        if (!(error instanceof ThreadRetiredError) || error.handlerStarted || handOver >= MAX_HAND_OVERS) throw error;
      }
    }
  }

  /**
   * Runs one attempt of each action of an ordered chunk in one thread (the
   * handler's handleChunk); see {@link run}.
   * @returns one outcome per action handled: a result serialised in the
   *   thread, or a ThreadTaskError describing the action's error.
   * @throws as {@link run}, for the chunk as a whole.
   */
  async runChunk(
    registered: RegisteredHandler,
    actions: QueuedAction[],
    workerId: string,
    signal: AbortSignal,
    onStarted: () => void = () => undefined,
  ): Promise<ChunkOutcome[]> {
    const [first, ...rest] = actions;
    const members = rest.map(({ payload, ...action }) => ({ action, payloadJson: stringifyJson(payload) ?? '{}' }));
    const payloadJson = stringifyJson(first.payload) ?? '{}';
    for (let handOver = 1; ; handOver++) {
      try {
        const answer = await this.runOnce(registered, first, payloadJson, workerId, signal, onStarted, members);
        if (!('chunk' in answer)) throw new ThreadTaskError('handler thread answered a chunk with a single result', null, false);
        return answer.chunk.map((o) =>
          o.ok
            ? { ok: true, result: new SerializedResult(o.resultJson) }
            : { ok: false, error: new ThreadTaskError(o.message, o.stack, o.permanent, o.backOff) },
        );
      } catch (error) {
        if (!(error instanceof ThreadRetiredError) || error.handlerStarted || handOver >= MAX_HAND_OVERS) throw error;
      }
    }
  }

  /** One hand-over of an attempt to the pool; see run. */
  private async runOnce(
    registered: RegisteredHandler,
    action: QueuedAction,
    payloadJson: string,
    workerId: string,
    signal: AbortSignal,
    onStarted: () => void,
    members?: ThreadTask['members'],
  ): Promise<{ resultJson: string } | { chunk: ThreadChunkOutcome[] }> {
    const { payload: _payload, ...rest } = action;
    let handlerStarted = false;
    const started = new MessageChannel();
    started.port1.once('message', () => {
      handlerStarted = true;
      onStarted();
    });
    const task: ThreadTask = {
      file: registered.file!,
      type: registered.options.type,
      action: rest,
      payloadJson,
      workerId,
      startedPort: started.port2,
      members,
      takenBy: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
    };
    const what = `action ${action.id} attempt ${action.attempt}`;
    let answer: ThreadTaskResult;
    try {
      answer = await this.poolFor(registered).run(task, { signal, transferList: [started.port2] });
    } catch (error) {
      // Withdrawn: a thread that has not taken the task never will; one that
      // has is stopped, and the attempt ends only once it has exited.
      const taker = Atomics.compareExchange(task.takenBy, 0, 0, TASK_WITHDRAWN);
      if (taker > 0) await this.exits.stop(taker, what);
      if (signal.aborted) throw signal.reason;
      const e = error as Error & { code?: string };
      if (RETIRED_THREAD_EXIT.test(e.message)) throw new ThreadRetiredError(handlerStarted || taker > 0);
      // Handed to a thread that went away before taking it: its handler never ran.
      if (taker === 0 && THREAD_GONE.test(e.message)) throw new ThreadRetiredError(false);
      const message =
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `handler thread ran out of memory (resourceLimits ${JSON.stringify(registered.options.resourceLimits ?? {})}): ${e.message}`
          : `handler thread died: ${e.message}`;
      throw new ThreadTaskError(message, e.stack ?? null, false);
    } finally {
      started.port1.close();
    }
    if ('refused' in answer) throw new ThreadRetiredError(false);
    // A stray error was raised in the thread: its handler may still be running.
    if (answer.retiring) await this.exits.stop(Atomics.load(task.takenBy, 0), what);
    if (!answer.ok) throw new ThreadTaskError(answer.message, answer.stack, answer.permanent, answer.backOff);
    return answer;
  }

  /** Terminates every handler thread, waiting at most THREAD_STOP_TIMEOUT_MS (a thread blocked in native code is left to the process's exit). */
  async onApplicationShutdown(): Promise<void> {
    if (this.pools.size === 0) return;
    const destroyed = Promise.all([...this.pools.values()].map((pool) => pool.destroy()));
    this.pools.clear();
    await shutdownStep('handler threads terminating', destroyed, THREAD_STOP_TIMEOUT_MS, this.logger);
  }

  private poolFor(registered: RegisteredHandler): Piscina<ThreadTask, ThreadTaskResult> {
    let pool = this.pools.get(registered.options.type);
    if (!pool) {
      // Loaded on first use: most services have no thread-isolated handler.
      const { Piscina: Pool } = require('piscina') as typeof import('piscina');
      pool = new Pool<ThreadTask, ThreadTaskResult>({
        filename: THREAD_ENTRY,
        name: 'default',
        minThreads: 0,
        // One thread per concurrent attempt (threads start on demand), so a
        // queued attempt never spends its timeout waiting for a thread.
        maxThreads: Math.min(this.settings.WORKER_CONCURRENCY, MAX_THREADS_PER_TYPE),
        idleTimeout: THREAD_IDLE_TIMEOUT_MS,
        resourceLimits: registered.options.resourceLimits,
        // Idle threads run their event loop, so a stray timer fires while idle (see the class comment).
        atomics: 'disabled',
        // A handler written in TypeScript and run with ts-node (npm run start:dev).
        execArgv: registered.file?.endsWith('.ts') ? [...process.execArgv, '-r', 'ts-node/register/transpile-only'] : process.execArgv,
      });
      // An error of a thread with no task (none expected: threads catch their stray errors) must not end the process.
      pool.on('error', (error: Error) => this.logger.error(`Handler thread of type ${registered.options.type} failed while idle: ${error.message}`));
      this.exits.watch(pool);
      this.pools.set(registered.options.type, pool);
    }
    return pool;
  }
}
