import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { flags as flagsApi } from '../api/flags';
import { useQuery } from '../api/hooks';
import { segments as segmentsApi } from '../api/segments';
import { fuzzyMatch } from '../lib/fuzzy';
import { paths, switchNamespace } from '../routes/paths';
import { useNamespaces } from '../session/namespaces';
import { can } from '../session/permissions';
import { useSession } from '../session/session';
import { useModal } from './modal';
import { chooseTheme, useTheme, type Theme } from './theme';

/**
 * Flipt's command palette: Ctrl+K (⌘K) or the header's button opens a search over places to go,
 * the current namespace's flags and segments (loaded each time it opens), namespaces to switch
 * to and themes. A modal <dialog> (the page behind is inert, Escape closes it, focus returns to
 * where it was); the search box is a combobox over a listbox whose active option follows ↑/↓
 * (aria-activedescendant), and Enter runs it.
 */
export function CommandPalette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'k' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      // Another modal (a confirmation) keeps the keyboard to itself.
      if (document.querySelector('dialog[open]:not(.palette)')) return;
      event.preventDefault();
      setOpen((was) => !was);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <>
      <button type="button" class="button button-quiet palette-button topbar-button" aria-haspopup="dialog" aria-keyshortcuts="Control+K Meta+K" onClick={() => setOpen(true)}>
        <svg class="topbar-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round">
          <circle cx="11" cy="11" r="7" />
          <path d="M20 20l-4-4" />
        </svg>
        <span class="topbar-words">Search…</span> <kbd>{isMac() ? '⌘K' : 'Ctrl K'}</kbd>
      </button>
      <PaletteDialog open={open} onClose={() => setOpen(false)} />
    </>
  );
}

function isMac(): boolean {
  return /Mac|iPhone|iPad/.test(navigator.userAgent);
}

function PaletteDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useModal(open);
  return (
    <dialog
      ref={ref}
      class="dialog palette"
      aria-label="Command palette"
      onCancel={onClose}
      onClose={() => open && onClose()}
      // A click on the backdrop lands on the <dialog> itself: close, as Escape does.
      onClick={(e) => e.target === e.currentTarget && onClose()}
    >
      {open && <PaletteBody onDone={onClose} />}
    </dialog>
  );
}

type Kind = 'Go to' | 'Flag' | 'Segment' | 'Namespace' | 'Theme';

interface Command {
  id: string;
  kind: Kind;
  /** What the option says (searched and highlighted). */
  label: string;
  /** A second, quieter line: a flag's name, "current" (searched too). */
  detail?: string;
  run(): void;
}

interface Result {
  command: Command;
  score: number;
  /** Matched characters in `label`, then in `detail`. */
  inLabel: number[];
  inDetail: number[];
}

/** Past this many results the list says how many more there are: typing narrows it. */
const SHOWN = 50;

function PaletteBody({ onDone }: { onDone: () => void }) {
  const commands = useCommands();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const optionId = (i: number) => `${listId}-${i}`;

  const results = useMemo(() => rank(commands.list, query), [commands.list, query]);
  const shown = results.slice(0, SHOWN);
  const current = Math.min(active, Math.max(shown.length - 1, 0));

  useEffect(() => {
    document.getElementById(optionId(current))?.scrollIntoView({ block: 'nearest' });
  }, [current, shown.length]);

  const run = (command: Command) => {
    onDone();
    command.run();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const count = shown.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (count > 0) setActive((current + (event.key === 'ArrowDown' ? 1 : count - 1)) % count);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (shown[current]) run(shown[current].command);
    } else if (event.key === 'Tab') {
      // The search box is the dialog's one control: focus stays in it.
      event.preventDefault();
      input.current?.focus();
    }
  };

  let status = '';
  if (commands.loading) status = 'Loading flags and segments…';
  else if (commands.error) status = commands.error;
  if (shown.length === 0 && !commands.loading) status = `Nothing matches “${query.trim()}”.`;

  return (
    <div class="palette-body" onKeyDown={onKeyDown}>
      <label class="visually-hidden" for={`${listId}-input`}>
        Search commands, flags and segments
      </label>
      <input
        ref={input}
        id={`${listId}-input`}
        class="palette-input"
        type="text"
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown.length > 0 ? optionId(current) : undefined}
        autocomplete="off"
        spellcheck={false}
        placeholder="Go to a page, a flag or a segment; switch namespace; change theme"
        value={query}
        onInput={(e) => {
          setQuery(e.currentTarget.value);
          setActive(0);
        }}
      />
      <ul id={listId} class="palette-list" role="listbox" aria-label="Commands" aria-busy={commands.loading ? 'true' : undefined}>
        {shown.map((r, i) => (
          <li
            key={r.command.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === current}
            class={i === current ? 'palette-option active' : 'palette-option'}
            // The search box keeps the focus; a click runs the option.
            onMouseDown={(e) => e.preventDefault()}
            onMouseMove={() => i !== current && setActive(i)}
            onClick={() => run(r.command)}
          >
            <span class="palette-text">
              <Marked class={r.command.kind === 'Flag' || r.command.kind === 'Segment' ? 'palette-label mono' : 'palette-label'} text={r.command.label} positions={r.inLabel} />
              {r.command.detail && <Marked class="palette-detail" text={r.command.detail} positions={r.inDetail} />}
            </span>
            <span class="palette-kind">{r.command.kind}</span>
          </li>
        ))}
      </ul>
      <p class="palette-status" role="status">
        {status}
        {results.length > SHOWN && `${results.length - SHOWN} more: type to narrow the list.`}
      </p>
      <p class="palette-keys muted" aria-hidden="true">
        <kbd>↑</kbd> <kbd>↓</kbd> move · <kbd>Enter</kbd> open · <kbd>Esc</kbd> close
      </p>
    </div>
  );
}

/** Best first; with an empty query, everything in the order built (pages, flags, segments, …). */
function rank(commands: Command[], query: string): Result[] {
  const q = query.trim();
  const results: Result[] = [];
  for (const command of commands) {
    const label = command.detail ? `${command.label} ${command.detail}` : command.label;
    // The kind is searched too ("segment pro"), never highlighted.
    const match = fuzzyMatch(q, `${label} ${command.kind}`);
    if (!match) continue;
    const cut = command.label.length + 1;
    results.push({
      command,
      score: match.score + (q !== '' && command.label.toLowerCase() === q.toLowerCase() ? 100 : 0),
      inLabel: match.positions.filter((p) => p < command.label.length),
      inDetail: match.positions.filter((p) => p >= cut && p < label.length).map((p) => p - cut),
    });
  }
  // Array.prototype.sort is stable: equal scores keep the built order.
  return q === '' ? results : results.sort((a, b) => b.score - a.score);
}

/** Text with the matched characters in <mark>. */
function Marked({ text, positions, class: className }: { text: string; positions: number[]; class: string }) {
  const marked = new Set(positions);
  const parts: { text: string; mark: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const mark = marked.has(i);
    const last = parts[parts.length - 1];
    if (last && last.mark === mark) last.text += text[i];
    else parts.push({ text: text[i], mark });
  }
  return <span class={className}>{parts.map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}</span>;
}

const THEMES: { theme: Theme; label: string }[] = [
  { theme: 'light', label: 'light' },
  { theme: 'dark', label: 'dark' },
  { theme: 'system', label: 'system' },
];

/** Every command, for the current namespace, location and theme. */
function useCommands(): { list: Command[]; loading: boolean; error: string } {
  const { list: namespaces, current: ns, choose } = useNamespaces();
  const [location, navigate] = useLocation();
  const theme = useTheme();
  const tokensAllowed = can(useSession().grants, 'admin');
  const flags = useQuery(() => flagsApi.list(ns), [ns]);
  const segments = useQuery(() => segmentsApi.list(ns), [ns]);

  const list = useMemo(() => {
    const go = (label: string, to: string): Command => ({ id: `go:${label}`, kind: 'Go to', label: `Go to ${label}`, run: () => navigate(to) });
    return [
      go('Flags', paths.flags(ns)),
      go('Segments', paths.segments(ns)),
      go('Console', paths.console(ns)),
      go('Audit', paths.audit(ns)),
      go('Namespaces', paths.namespaces),
      ...(tokensAllowed ? [go('API tokens', paths.tokens)] : []),
      go('Settings', paths.settings),
      go('Getting started', paths.gettingStarted(ns)),
      ...(flags.data ?? []).map<Command>((f) => ({
        id: `flag:${f.key}`,
        kind: 'Flag',
        label: f.key,
        detail: f.name !== f.key ? f.name : undefined,
        run: () => navigate(paths.flag(ns, f.key)),
      })),
      ...(segments.data ?? []).map<Command>((s) => ({
        id: `segment:${s.key}`,
        kind: 'Segment',
        label: s.key,
        detail: s.name !== s.key ? s.name : undefined,
        run: () => navigate(paths.segment(ns, s.key)),
      })),
      ...namespaces
        .filter((n) => n.key !== ns)
        .map<Command>((n) => ({
          id: `ns:${n.key}`,
          kind: 'Namespace',
          label: `Switch namespace to ${n.key}`,
          detail: n.name !== n.key ? n.name : undefined,
          // As the header's switcher does: the same section in the other namespace.
          run: () => {
            choose(n.key);
            const target = switchNamespace(location, n.key);
            if (target !== location) navigate(target);
          },
        })),
      ...THEMES.map<Command>((t) => ({
        id: `theme:${t.theme}`,
        kind: 'Theme',
        label: `Change theme: ${t.label}`,
        detail: t.theme === theme ? 'current' : undefined,
        run: () => chooseTheme(t.theme),
      })),
    ];
  }, [ns, location, theme, namespaces, flags.data, segments.data, tokensAllowed]);

  const failed = [flags.error && 'flags', segments.error && 'segments'].filter(Boolean);
  return {
    list,
    loading: flags.loading || segments.loading,
    error: failed.length > 0 ? `Could not load the ${failed.join(' and ')} of namespace ${ns}.` : '',
  };
}
