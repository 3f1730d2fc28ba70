import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { fetchMetrics, flagEvaluations, linesFor, metricPrefixes, MetricsDisabled, parsePrometheus, type FlagEvaluations } from '../../../api/metrics';

/** How often the section samples /metrics while it is on screen. */
export const SAMPLE_MS = 5_000;
/** How far back the sparkline reaches. */
export const WINDOW_MS = 5 * 60_000;

/** The flag's total evaluations at one moment (the sparkline's points are the differences). */
export interface Point {
  at: number;
  total: number;
}

export interface EvaluationsState {
  /** loading: no answer yet; disabled: /metrics is 404 (`metrics.enabled: false`). */
  status: 'loading' | 'ready' | 'disabled' | 'error';
  stats: FlagEvaluations | null;
  points: Point[];
  /** The last sample's failure (with the previous counts still shown), or the first load's. */
  error: unknown;
  /** Takes a sample now (the Refresh button). */
  refresh: () => void;
}

/**
 * Samples this flag's counters from /metrics: once on mount, then every SAMPLE_MS while the
 * section is in view and the browser tab is visible (a flag page left open in a background tab
 * scrapes nothing). Samples never overlap; a refresh during one waits for it. A 404 stops the
 * timer (the instance has no metrics until it restarts); Refresh looks again.
 */
export function useFlagEvaluations(ns: string, flag: string, section: RefObject<HTMLElement>): EvaluationsState {
  const [state, setState] = useState<Omit<EvaluationsState, 'refresh'>>({ status: 'loading', stats: null, points: [], error: null });
  const sampleNow = useRef<() => void>(() => undefined);

  useEffect(() => {
    let unmounted = false;
    /** After a 404: no timer until a refresh looks again. */
    let halted = false;
    let visible = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let again = false;
    const controller = new AbortController();

    const schedule = () => {
      clearTimeout(timer);
      timer = undefined;
      if (!unmounted && !halted && visible && !document.hidden) timer = setTimeout(sample, SAMPLE_MS);
    };

    async function take(): Promise<void> {
      try {
        const text = await fetchMetrics(controller.signal);
        const scrape = parsePrometheus(text, linesFor(flag));
        // One exporter, one prefix (`metrics.namespace`); none yet → nothing counted.
        const prefix = metricPrefixes(scrape)[0] ?? 'service';
        const stats = flagEvaluations(scrape, prefix, ns, flag);
        const at = Date.now();
        if (unmounted) return;
        setState((s) => ({
          status: 'ready',
          stats,
          points: [...s.points.filter((p) => p.at > at - WINDOW_MS), { at, total: stats.requests }],
          error: null,
        }));
      } catch (error) {
        if (unmounted) return;
        const disabled = error instanceof MetricsDisabled;
        if (disabled) halted = true;
        setState((s) => ({ ...s, status: disabled ? 'disabled' : s.stats ? 'ready' : 'error', error }));
      }
    }

    function sample(): void {
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(timer);
      timer = undefined;
      void take().finally(() => {
        running = false;
        if (again && !unmounted) {
          again = false;
          sample();
        } else schedule();
      });
    }
    sampleNow.current = () => {
      halted = false; // a refresh after a 404 looks again
      sample();
    };

    const onVisibility = () => {
      // Out of sight: no timer. Back in sight: a sample at once, then every SAMPLE_MS.
      if (!visible || document.hidden) schedule();
      else if (timer === undefined && !running && !halted) sample();
    };
    document.addEventListener('visibilitychange', onVisibility);
    const observer =
      typeof IntersectionObserver === 'undefined'
        ? null
        : new IntersectionObserver((entries) => {
            const next = entries.some((e) => e.isIntersecting);
            if (next === visible) return;
            visible = next;
            onVisibility();
          });
    if (observer && section.current) observer.observe(section.current);

    sample();
    return () => {
      unmounted = true;
      clearTimeout(timer);
      controller.abort();
      observer?.disconnect();
      document.removeEventListener('visibilitychange', onVisibility);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new flag or namespace starts over
  }, [ns, flag]);

  const refresh = useCallback(() => sampleNow.current(), []);
  return { ...state, refresh };
}
