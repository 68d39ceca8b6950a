import 'reflect-metadata';
import { CreateActionDto } from '../actions/dto/create-action.dto';
import { CreateActionsBatchDto } from '../actions/dto/create-actions-batch.dto';
import { QueueValidationPipe } from './validation.pipe';
import { detachOpaqueJson } from './opaque-json';

describe('opaque JSON in DTOs', () => {
  const pipe = new QueueValidationPipe();

  it('never hands a payload to class-transformer, and puts the very object back', async () => {
    const payload = { toString: 'kept', nested: { a: [1, 2] } };
    const single = (await pipe.transform({ type: 'instance.create', payload }, { type: 'body', metatype: CreateActionDto })) as CreateActionDto;
    expect(single).toBeInstanceOf(CreateActionDto);
    expect(single.payload).toBe(payload);
    const items = [{ type: 'a', payload: { x: 1 } }, { type: 'b' }];
    const batch = (await pipe.transform({ actions: items }, { type: 'body', metatype: CreateActionsBatchDto })) as CreateActionsBatchDto;
    expect(batch.actions[0].payload).toBe(items[0].payload);
    expect(batch.actions[1].payload).toBeUndefined();
  });

  it('lets the validators on the property decide as before, on a stand-in of the same kind', async () => {
    await expect(pipe.transform({ type: 'a', payload: [1] }, { type: 'body', metatype: CreateActionDto })).rejects.toMatchObject({
      response: { message: ['payload must be a JSON object'] },
    });
    await expect(pipe.transform({ type: 'a', payload: 'text' }, { type: 'body', metatype: CreateActionDto })).rejects.toMatchObject({
      response: { message: ['payload must be a JSON object'] },
    });
  });

  it('costs the same for a payload of 200 000 keys as for one of 10 (no walk of it)', async () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) wide[`k${i}`] = i;
    const detached = detachOpaqueJson({ type: 'a', payload: wide }, CreateActionDto);
    expect(detached.value).toEqual({ type: 'a', payload: {} });
    const started = performance.now();
    const out = (await pipe.transform({ type: 'a', payload: wide }, { type: 'body', metatype: CreateActionDto })) as CreateActionDto;
    expect(out.payload).toBe(wide);
    // Walking 200 000 keys in class-transformer took minutes; no walk at all takes well under a second on any machine.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
