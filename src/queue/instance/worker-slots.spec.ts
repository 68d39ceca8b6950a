import { QueueSettings } from '../../config/settings';
import { WorkerSlots } from './worker-slots';

const slotsOf = (concurrency: number) => new WorkerSlots({ WORKER_CONCURRENCY: concurrency } as QueueSettings);

describe('WorkerSlots', () => {
  it('never grants more than WORKER_CONCURRENCY between occupied and reserved slots', () => {
    const slots = slotsOf(4);
    const first = slots.reserve();
    expect(first.slots).toBe(4);
    expect(slots.reserve().slots).toBe(0);
    slots.settle(first, 3, 4);
    expect(slots.occupied).toBe(3);
    expect(slots.reserve().slots).toBe(1);
  });

  it('counts the slots of attempts being recorded as free for the statement that records them', () => {
    const slots = slotsOf(2);
    slots.settle(slots.reserve(), 2, 2);
    expect(slots.reserve(2).slots).toBe(2);
  });

  it('keeps a stuck handler in its slot until it is vacated', () => {
    const slots = slotsOf(1);
    slots.settle(slots.reserve(), 1, 1);
    slots.handlerStarting('7');
    slots.markStuck('7', 1);
    expect(slots.stuck).toBe(1);
    expect(slots.reserve().slots).toBe(0);
    slots.markStuck('7', -1);
    slots.handlerSettled('7');
    expect(slots.reserve().slots).toBe(1);
  });

  it('gives an action one slot however many of its handlers are stuck: a retry shares the slot of its stuck predecessor', () => {
    const slots = slotsOf(2);
    let freed = 0;
    slots.onSlotFreed(() => freed++);
    slots.settle(slots.reserve(), 1, 2);
    slots.handlerStarting('7');
    slots.markStuck('7', 1); // attempt 1 timed out, its handler runs on
    slots.settle(slots.reserve(), 1, 1); // attempt 2 claimed into the free slot...
    slots.handlerStarting('7'); // ...and gives it back: action 7 holds one already
    expect(freed).toBe(1);
    expect(slots.occupied).toBe(1);
    expect(slots.reserve().slots).toBe(1);
    expect(slots.freesSlotWhenSettled('7')).toBe(false);
    slots.handlerSettled('7'); // attempt 2 returned: attempt 1 still holds the slot
    expect(slots.occupied).toBe(1);
    expect(slots.stuckSlots).toBe(1);
    expect(slots.freesSlotWhenSettled('7')).toBe(true);
    slots.markStuck('7', -1);
    slots.handlerSettled('7');
    expect(slots.occupied).toBe(0);
    expect(slots.stuckSlots).toBe(0);
  });

  it('grants nothing while paused, for any reason, and again once every pause is lifted', () => {
    const slots = slotsOf(3);
    slots.pause('fenced');
    slots.pause('stopping');
    expect(slots.reserve().slots).toBe(0);
    slots.resume('fenced');
    expect(slots.reserve().slots).toBe(0);
    slots.resume('stopping');
    expect(slots.reserve().slots).toBe(3);
  });

  it('marks the queue idle after a short claim, unless something woke the worker meanwhile', () => {
    const slots = slotsOf(8);
    const grant = slots.reserve();
    slots.settle(grant, 2, 8);
    expect(slots.idle).toBe(true);
    slots.wake();
    expect(slots.idle).toBe(false);
    const raced = slots.reserve();
    slots.wake(); // a notification during the claim
    slots.settle(raced, 0, 6);
    expect(slots.idle).toBe(false);
  });

  it('grants one slot to a suspect beside the others, never while paused or full', () => {
    const slots = slotsOf(3);
    slots.settle(slots.reserve(), 1, 3);
    slots.pause('fenced');
    expect(slots.reserveOne()).toBeNull();
    slots.resume('fenced');
    const one = slots.reserveOne();
    expect(one?.slots).toBe(1);
    expect(slots.reserve().slots).toBe(1);
    expect(slots.reserveOne()).toBeNull();
    slots.settle(one!, 1, null);
    expect(slots.occupied).toBe(2);
  });

  it('keeps one slot from claims while a suspect may be due, and gives it to the suspect', () => {
    const slots = slotsOf(3);
    slots.holdBackOne(true);
    const claim = slots.reserve();
    expect(claim.slots).toBe(2);
    const one = slots.reserveOne();
    expect(one?.slots).toBe(1);
    slots.settle(claim, 0, 2);
    // The hold ended with the suspect's grant.
    expect(slots.reserve().slots).toBe(2);
  });
});
