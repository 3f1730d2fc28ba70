import { useEffect, useRef, useState } from 'preact/hooks';
import type { FieldA11y } from '../../components/field';
import type { Flag } from '../../api/types';

/**
 * A searchable flag select (the ARIA combobox pattern): typing filters the namespace's flags
 * by key or name; ↓/↑ move through the list, Enter picks, Escape closes and restores the
 * choice. Leaving the box with a flag's exact key typed picks that flag.
 */
export interface FlagPickerProps {
  a11y: FieldA11y;
  flags: Flag[];
  value: string;
  onChange: (key: string) => void;
}

const MAX_SHOWN = 50;

export function FlagPicker({ a11y, flags, value, onChange }: FlagPickerProps) {
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => setText(value), [value]);

  const needle = text.trim().toLowerCase();
  // While the box shows the chosen flag, the list offers every flag, not only that one.
  const matching = needle === '' || text === value ? flags : flags.filter((f) => f.key.toLowerCase().includes(needle) || f.name.toLowerCase().includes(needle));
  const shown = matching.slice(0, MAX_SHOWN);
  const listId = `${a11y.id}-list`;
  const optionId = (i: number) => `${a11y.id}-option-${i}`;

  useEffect(() => {
    list.current?.querySelector('[data-active="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [active, open]);

  const pick = (flag: Flag) => {
    setText(flag.key);
    setOpen(false);
    onChange(flag.key);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        setActive(Math.max(0, shown.findIndex((f) => f.key === value)));
        return;
      }
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (shown.length === 0 ? 0 : (i + step + shown.length) % shown.length));
    } else if (e.key === 'Enter' && open && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      if (shown[active]) pick(shown[active]);
    } else if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
      setText(value);
    }
  };

  const onBlur = () => {
    setOpen(false);
    const exact = flags.find((f) => f.key === text.trim());
    if (exact && exact.key !== value) onChange(exact.key);
    else if (!exact) setText(value);
  };

  return (
    <div class="combobox">
      <input
        {...a11y}
        type="text"
        role="combobox"
        class="mono"
        autoComplete="off"
        spellcheck={false}
        placeholder="Search flags by key or name"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && shown[active] ? optionId(active) : undefined}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onClick={() => setOpen(true)}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      />
      {open && (
        <ul class="combobox-list" id={listId} role="listbox" ref={list} aria-label="Flags">
          {shown.length === 0 && <li class="combobox-empty">No flag matches “{text}”.</li>}
          {shown.map((f, i) => (
            <li
              key={f.key}
              id={optionId(i)}
              role="option"
              aria-selected={f.key === value}
              data-active={i === active}
              class={i === active ? 'combobox-option active' : 'combobox-option'}
              // mousedown, not click: it comes before the input's blur.
              onMouseDown={(e) => {
                e.preventDefault();
                pick(f);
              }}
            >
              <span class="mono">{f.key}</span>
              {f.name !== f.key && <span class="muted"> {f.name}</span>}
              <span class="console-type">{f.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant'}</span>
            </li>
          ))}
          {matching.length > MAX_SHOWN && <li class="combobox-empty">{matching.length - MAX_SHOWN} more: type to narrow.</li>}
        </ul>
      )}
    </div>
  );
}
