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
  const run = async (slot: number): Promise<void> => {
    const proc = await start(slot);
    supervisor.all.push(proc);
    current[slot] = proc;
    void proc.exited.then((code) => {
      supervisor.deaths.set(proc.child.pid!, Date.now());
      supervisor.exits.set(proc.child.pid!, code);
      current[slot] = null;
      if (!stopping) void run(slot);
    });
  };
  await Promise.all(Array.from({ length: slots }, (_, i) => run(i)));
  supervisor.stop = async () => {
    stopping = true;
    await Promise.all(current.map((p) => p?.kill()));
  };
  return supervisor;
}
