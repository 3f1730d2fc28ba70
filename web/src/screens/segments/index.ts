import { paths } from '../../routes/paths';
import type { Screen } from '../../routes/types';
import { SegmentDetailScreen } from './detail';
import { SegmentNewScreen } from './form';
import { SegmentsListScreen } from './list';

/** Segments (Flipt's segments screens): the table, create, and a segment's page with its constraints. */
export const segmentsScreen: Screen = {
  nav: { label: 'Segments', group: 'namespace', href: paths.segments },
  routes: [
    { path: '/namespaces/:ns/segments', component: SegmentsListScreen },
    { path: '/namespaces/:ns/segments/new', component: SegmentNewScreen },
    { path: '/namespaces/:ns/segments/:segmentKey', component: SegmentDetailScreen },
  ],
};
