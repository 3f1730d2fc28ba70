import { Placeholder } from '../../components/page';

export function SegmentsPlaceholder() {
  return <Placeholder title="Segments" what="The segments list and segment editor with constraints will live here." />;
}
