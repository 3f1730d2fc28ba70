import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { SegmentsPlaceholder } from './placeholder';

/** Segments: list, create, detail with constraints. Placeholder until that change lands. */
export const segmentsScreen: Screen = {
  nav: { label: 'Segments', group: 'namespace', href: paths.segments },
  routes: [
    { path: '/namespaces/:ns/segments', component: SegmentsPlaceholder },
    { path: '/namespaces/:ns/segments/*', component: SegmentsPlaceholder },
  ],
};
