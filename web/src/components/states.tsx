import type { ComponentChildren } from 'preact';
import { ApiError } from '../api/errors';

/** While data loads. `aria-busy` lets tests and assistive technology know the screen is not ready. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="state state-loading" role="status" aria-busy="true">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

/** Nothing to show yet, and what to do about it. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <p class="state-title">{title}</p>
      {children}
    </div>
  );
}

/** A load that failed, with a way to try again. */
export function LoadError({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  return (
    <div class="state state-error" role="alert">
      <p class="state-title">Could not load this.</p>
      <p>{message}</p>
      {retry && (
        <button type="button" class="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
