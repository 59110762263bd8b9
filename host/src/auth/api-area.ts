/**
 * The API area (`Gov::Api::"<area>"`) an admin request touches, from its path:
 * the first segment after an optional `admin/` (`/pipelines/x` → `pipelines`,
 * `/admin/secrets/invalidate` → `secrets`). The fleet overview
 * (`/health/overview`) lists agents, so it is the `agents` area.
 */
export function apiAreaOf(url: string | undefined): string {
  const segments = (url ?? '/').split('?')[0].split('/').filter(Boolean)
  if (segments[0] === 'admin' && segments.length > 1) segments.shift()
  const first = segments[0] ?? ''
  return first === 'health' ? 'agents' : first
}
