import { UnauthorizedError } from '../api';

/** A failed load or action, shown inline (a refused key is handled by the key prompt instead). */
export function ErrorNotice({ error }: { error: Error | undefined }) {
  if (!error || error instanceof UnauthorizedError) return null;
  return (
    <p class="error-text" role="alert">
      {error.message}
    </p>
  );
}
