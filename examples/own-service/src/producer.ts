import { ActionQueueClient, ActionQueueHttpError } from 'ordered-action-queue/client';

/**
 * A producer in another Node service: enqueues a greeting over HTTP (safe to
 * retry: it carries an idempotency key) and waits for it to be done.
 * QUEUE_URL and QUEUE_API_KEY say where the service is.
 */
async function main(): Promise<void> {
  const queue = new ActionQueueClient({ baseUrl: process.env.QUEUE_URL ?? 'http://127.0.0.1:3000', apiKey: process.env.QUEUE_API_KEY });
  const name = process.argv[2] ?? 'Ada';
  const { action, created } = await queue.enqueue({ type: 'greeting.send', lockId: '1', payload: { name }, idempotencyKey: `greeting-${name}` });
  let current = await queue.get(action.id);
  while (current.status === 'pending' || current.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = await queue.get(action.id);
  }
  console.log(JSON.stringify({ id: current.id, created, status: current.status, result: current.result }));
  if (current.status !== 'done') process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof ActionQueueHttpError ? `${error.status}: ${error.messages.join('; ')}` : error);
  process.exitCode = 1;
});
