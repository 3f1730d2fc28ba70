import { can, deniedBecause, type Action } from './permissions';
import { useSession } from './session';

/**
 * Whether a control is offered, for screens: the caller's role (session/permissions.ts) and,
 * for changes, whether the instance accepts them at all (read-only storage). `reason` is the
 * title a disabled control carries ("Needs the editor role in namespace default").
 */
export interface Access {
  allowed: boolean;
  reason: string | null;
}

export const READ_ONLY_REASON = 'This instance is read-only';

/**
 * `namespace` omitted: the action everywhere (creating a namespace, API tokens). `storage: false`
 * for changes that read-only flag storage does not stop (API tokens live in the auth store).
 */
export function useAccess(action: Action, namespace?: string, { storage = true }: { storage?: boolean } = {}): Access {
  const { grants, readOnly } = useSession();
  if (!can(grants, action, namespace)) return { allowed: false, reason: deniedBecause(action, namespace) };
  if (storage && readOnly && (action === 'write' || action === 'admin')) return { allowed: false, reason: READ_ONLY_REASON };
  return { allowed: true, reason: null };
}

/** Changes to flags, segments and what they hold in `namespace`: the common case. */
export function useWritable(namespace: string): Access {
  return useAccess('write', namespace);
}
