import { useState } from 'preact/hooks';

/** Props of {@link KeyPrompt}. */
export interface KeyPromptProps {
  /** True when a key was sent and refused. */
  rejected: boolean;
  onSubmit: (key: string) => void;
}

/**
 * Asks for the API key (the service's API_KEY setting). The key is kept in
 * this tab's sessionStorage and sent as an `Authorization` header; it never
 * appears in a URL.
 */
export function KeyPrompt({ rejected, onSubmit }: KeyPromptProps) {
  const [key, setKey] = useState('');
  return (
    <article class="key-prompt" aria-labelledby="key-title">
      <h2 id="key-title">API key required</h2>
      <p>This service requires its API key. It is kept in this browser tab only and sent with each request as a header.</p>
      {rejected && (
        <p class="error-text" role="alert" data-testid="key-rejected">
          The key was refused. Check the service's API_KEY setting.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) onSubmit(key.trim());
        }}
      >
        <label>
          API key
          <input
            type="password"
            name="api-key"
            autocomplete="off"
            required
            value={key}
            aria-invalid={rejected ? 'true' : undefined}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Use this key</button>
      </form>
    </article>
  );
}
