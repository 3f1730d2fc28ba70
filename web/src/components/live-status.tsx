import { LIVE_TIMING, type LiveStatus } from '../api/live';
import { useLiveStatus } from '../session/live';

const SAY: Record<LiveStatus, { words: string; title: string }> = {
  live: { words: 'Live', title: 'Live updates: changes made elsewhere show here within a second.' },
  connecting: { words: 'Connecting…', title: 'Opening live updates.' },
  offline: {
    words: 'Offline',
    title: `Live updates are interrupted: reconnecting, and meanwhile checking for changes every ${LIVE_TIMING.pollMs / 1000} s.`,
  },
};

/**
 * In the header: whether this page follows changes made elsewhere as they happen (the
 * namespace's event stream is open), is opening it, or is reconnecting (and polling slowly
 * meanwhile). `data-live-status` is what the tests wait on.
 */
export function LiveStatusBadge() {
  const status = useLiveStatus();
  const { words, title } = SAY[status];
  return (
    <span class={`live-status live-status-${status}`} data-live-status={status} title={title}>
      <span class="live-dot" aria-hidden="true" />
      <span class="topbar-words">{words}</span>
    </span>
  );
}
