#!/usr/bin/env bash
# Makes sure PostgreSQL, MariaDB and Redis are up on loopback, starting any that is down,
# and fails loudly if one cannot be reached; installs Debian's Chromium (the dashboard's browser
# tests) when it is missing. Used by .ci/run; safe to run by hand.
set -uo pipefail

wait_for() { # name, check command
  local name=$1; shift
  for _ in $(seq 1 30); do
    if "$@" >/dev/null 2>&1; then echo "services: $name is up"; return 0; fi
    sleep 1
  done
  echo "services: $name is not reachable" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! mysqladmin -h 127.0.0.1 -P 3306 -u root ping >/dev/null 2>&1; then
  echo "services: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "services: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
fi

if [ ! -x /usr/bin/chromium ]; then
  echo "services: installing Chromium (dashboard browser tests)"
  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) >/tmp/pennon-chromium-install.log 2>&1 \
    || { echo "services: installing Chromium failed (see /tmp/pennon-chromium-install.log)" >&2; }
fi

status=0
[ -x /usr/bin/chromium ] || { echo "services: /usr/bin/chromium is missing" >&2; status=1; }
wait_for PostgreSQL pg_isready -h 127.0.0.1 -p 5432 || status=1
wait_for MariaDB mysqladmin -h 127.0.0.1 -P 3306 -u root ping || status=1
wait_for Redis redis-cli -h 127.0.0.1 -p 6379 ping || status=1
exit $status
