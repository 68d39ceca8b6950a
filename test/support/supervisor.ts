import { ServiceProcess } from './service-process';

/**
 * Keeps service processes running the way a process manager would: each slot
 * is started again when its process exits, until `stop()`. Records when each
 * process died (pid → Date.now() ms) and its exit code, for the execution log.
 */
export interface Supervisor {
  /** Every process started so far (the current ones last). */
  all: ServiceProcess[];
  /** pid → when its process exited. */
  deaths: Map<number, number>;
  /** pid → exit code or signal. */
  exits: Map<number, number | string>;
  /** Stops restarting and kills what still runs. */
  stop(): Promise<void>;
}

/** @param start starts the process of slot `i`. */
export async function supervise(slots: number, start: (slot: number) => Promise<ServiceProcess>): Promise<Supervisor> {
  const supervisor: Supervisor = { all: [], deaths: new Map(), exits: new Map(), stop: async () => undefined };
  let stopping = false;
  const current: (ServiceProcess | null)[] = [];
  const restarts = new Set<Promise<void>>();
  const run = async (slot: number): Promise<void> => {
    let proc: ServiceProcess;
    try {
      proc = await start(slot);
    } catch (error) {
      if (stopping) return;
      if (supervisor.all.length === 0) throw error; // the first start failed: nothing to supervise
      return run(slot); // stopped while starting (a poison action): start again
    }
    supervisor.all.push(proc);
    if (stopping) return void (await proc.kill());
    current[slot] = proc;
    void proc.exited.then(() => {
      supervisor.deaths.set(proc.child.pid!, Date.now());
      supervisor.exits.set(proc.child.pid!, code(proc));
      current[slot] = null;
      if (stopping) return;
      const again = run(slot);
      restarts.add(again);
      void again.finally(() => restarts.delete(again));
    });
  };
  await Promise.all(Array.from({ length: slots }, (_, i) => run(i)));
  supervisor.stop = async () => {
    stopping = true;
    await Promise.allSettled([...restarts]);
    await Promise.all(current.map((p) => p?.kill()));
  };
  return supervisor;
}

/** The exit code or signal of a process that has exited. */
function code(proc: ServiceProcess): number | string {
  return proc.child.exitCode ?? proc.child.signalCode ?? -1;
}
