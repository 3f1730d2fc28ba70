#!/usr/bin/env bash
# Proves that the test suite needs nothing outside the repository: clones the committed
# repository into a fresh temporary directory (no sibling shared/, no PENNON_TEST_* variables,
# no browser) and runs the README's test command there. The external-database suites and the
# browser tests must take their skip paths, and everything else must pass. Used by .ci/run after
# the full run; safe to run by hand (it tests the last commit, not the working tree).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/pennon-fresh-XXXXXX")"
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$repo" "$work/pennon"
if [ -e "$work/shared" ]; then
  echo "fresh-clone: $work/shared exists; the clone must have nothing beside it" >&2
  exit 1
fi

# Unset every PENNON_TEST_* variable, and CI (which makes a missing browser an error); point the
# browser at a path that does not exist, so the dashboard tests take their skip path.
unset_args=(-u CI)
while IFS='=' read -r name _; do
  case "$name" in PENNON_TEST_*) unset_args+=(-u "$name") ;; esac
done < <(env)

echo "fresh-clone: npm ci && npm test in $work/pennon"
cd "$work/pennon"
env "${unset_args[@]}" PENNON_TEST_CHROMIUM="$work/no-chromium" bash -c 'npm ci && npm test'
echo "fresh-clone: passed"
