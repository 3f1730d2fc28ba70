import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** A screen's frame: its title (also the tab's), the actions beside it, then its content. */
export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Pennon`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title">{title}</h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** A screen that another change will build; its route exists so links and deep links work now. */
export function Placeholder({ title, what }: { title: string; what: string }) {
  return (
    <Page title={title}>
      <div class="state state-empty" data-placeholder={title}>
        <p class="state-title">Not built yet</p>
        <p>{what}</p>
      </div>
    </Page>
  );
}
