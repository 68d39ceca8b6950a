import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ActionContext, QueuedAction } from './action-context.interface';
import { ActionHandler } from './action-handler.decorator';
import { ActionHandlerHost } from './action-handler.host';
import { ActionHandlersExplorer } from './action-handlers.explorer';
import { ActionHandlersRegistry } from './action-handlers.registry';
import { chunkDone, ChunkHandlerHost } from './chunk-handler.host';

@ActionHandler({ type: 'fixture.create', timeoutMs: 1_000, maxAttempts: 3 })
class CreateHandler extends ActionHandlerHost {
  async handle(action: QueuedAction, ctx: ActionContext) {
    return { id: action.id, attempt: ctx.attempt };
  }
}

@ActionHandler({ type: 'fixture.render', isolation: 'thread' })
class RenderHandler extends ActionHandlerHost {
  async handle() {
    return null;
  }
}

@ActionHandler('fixture.create')
class SecondCreateHandler extends ActionHandlerHost {
  async handle() {
    return null;
  }
}

@ActionHandler('fixture.plain')
class NotAHost {
  async handle() {
    return null;
  }
}

@ActionHandler({ type: 'fixture.bad', maxAttempts: 0 })
class BadOptionsHandler extends ActionHandlerHost {
  async handle() {
    return null;
  }
}

@ActionHandler({ type: 'fixture.batch', chunk: { max: 25 } })
class BatchHandler extends ChunkHandlerHost {
  async handleChunk(actions: QueuedAction[]) {
    return actions.map(() => chunkDone());
  }
}

@ActionHandler({ type: 'fixture.batch-zero', chunk: { max: 0 } })
class ZeroChunkHandler extends BatchHandler {}

@ActionHandler({ type: 'fixture.chunk-not-host', chunk: { max: 5 } })
class ChunkOptionWithoutHost extends ActionHandlerHost {
  async handle() {
    return null;
  }
}

@ActionHandler('fixture.host-without-option')
class ChunkHostWithoutOption extends BatchHandler {}

/** Compiles DiscoveryModule, the explorer and the given providers (in a module of their own, as a user would). */
async function explore(...providers: (new (...args: never[]) => unknown)[]) {
  @Module({ providers })
  class UserHandlersModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, UserHandlersModule],
    providers: [ActionHandlersExplorer, ActionHandlersRegistry],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(ActionHandlersRegistry);
}

describe('ActionHandlersExplorer', () => {
  it('registers the providers marked @ActionHandler in any module, with their options and caps', async () => {
    const registry = await explore(CreateHandler);
    expect(registry.types()).toEqual(['fixture.create']);
    expect(registry.get('fixture.create')?.options).toMatchObject({ timeoutMs: 1_000, maxAttempts: 3 });
    expect(registry.caps()).toEqual([3]);
  });

  it('remembers the file that declares a thread-isolated handler, for its threads to load', async () => {
    const registry = await explore(RenderHandler);
    expect(registry.get('fixture.render')?.file).toBe(__filename);
  });

  it('stops start-up naming both classes when two handlers claim one type', async () => {
    await expect(explore(CreateHandler, SecondCreateHandler)).rejects.toThrow(
      'Two handlers for action type "fixture.create": CreateHandler and SecondCreateHandler',
    );
  });

  it('stops start-up for a class that does not extend ActionHandlerHost, or has bad options', async () => {
    await expect(explore(NotAHost)).rejects.toThrow('Invalid action handler NotAHost: it must extend ActionHandlerHost');
    await expect(explore(BadOptionsHandler)).rejects.toThrow('Invalid action handler BadOptionsHandler: maxAttempts must be an integer from 1 to 100');
  });

  it('registers a chunk handler with its chunk size, and refuses a bad chunk.max or a chunk option and class that do not go together', async () => {
    const registry = await explore(BatchHandler, CreateHandler);
    expect(registry.chunking()).toEqual({ types: ['fixture.batch'], max: [25] });
    expect(registry.isChunked('fixture.create')).toBe(false);
    await expect(explore(ZeroChunkHandler)).rejects.toThrow('chunk.max must be an integer from 1 to 1000, not 0');
    await expect(explore(ChunkOptionWithoutHost)).rejects.toThrow('must extend ChunkHandlerHost');
    await expect(explore(ChunkHostWithoutOption)).rejects.toThrow('it has handleChunk but no chunk option');
  });
});
