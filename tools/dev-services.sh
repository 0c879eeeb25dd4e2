#!/usr/bin/env bash
# Makes sure the servers Onceport's tests need are up on loopback: PostgreSQL (127.0.0.1:5432,
# trust auth for the postgres user) and a JetStream-enabled nats-server (127.0.0.1:4222), plus the
# nats-server binary that messaging tests start privately to kill and restart, curl, and Debian's
# chromium (the console's browser tests drive it with playwright-core), and promtool (the alert rules'
# test). Installs them from
# Debian's packages when missing. Safe to run again. Used by .ci/run and by new contributors.
set -euo pipefail

log() { printf '[dev-services] %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
  for _ in $(seq 1 100); do port_open "$1" && return 0; sleep 0.2; done
  log "nothing is listening on 127.0.0.1:$1 after 20 s"; return 1
}

pg_answers() { command -v psql >/dev/null 2>&1 && psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1; }

ensure_postgres() {
  # A server that already answers as postgres without a password is all the tests need: leave it be.
  if port_open 5432 && ! command -v psql >/dev/null 2>&1; then
    log "installing postgresql-client (psql) to check the server on 5432"; apt_install postgresql-client
  fi
  if pg_answers; then log "PostgreSQL is up on 127.0.0.1:5432"; return 0; fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    log "installing postgresql"; apt_install postgresql
  fi
  local version
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if ! port_open 5432; then
    log "starting PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    wait_port 5432
  fi
  if ! pg_answers; then
    # A fresh Debian cluster asks for passwords over TCP; the tests connect as postgres without one.
    local hba="/etc/postgresql/$version/main/pg_hba.conf"
    log "allowing trust auth for loopback in $hba"
    as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    sleep 1
  fi
  pg_answers || { log "PostgreSQL on 127.0.0.1:5432 does not accept the postgres user without a password"; return 1; }
  log "PostgreSQL is up on 127.0.0.1:5432"
}

nats_binary() { command -v nats-server 2>/dev/null || { [ -x /usr/sbin/nats-server ] && echo /usr/sbin/nats-server; }; }

# Asks the server on the port for its JetStream account info ($JS.API.INFO) over the plain NATS
# protocol; a server started without -js answers PONG but nothing on the API subject.
jetstream_answers() {
  local reply
  reply=$( { exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'CONNECT {"verbose":false}\r\nSUB _INBOX.devsvc 1\r\nPUB $JS.API.INFO _INBOX.devsvc 0\r\n\r\nPING\r\n' >&3
    timeout 2 cat <&3; } 2>/dev/null || true)
  case "$reply" in *account_info_response*) return 0 ;; *) return 1 ;; esac
}

ensure_nats() {
  if [ -z "$(nats_binary)" ]; then
    log "installing nats-server"; apt_install nats-server
  fi
  local binary; binary=$(nats_binary)
  if ! port_open 4222; then
    log "starting $binary with JetStream"
    as_root mkdir -p /var/lib/nats-server
    as_root start-stop-daemon --start --oknodo --background --exec "$binary" -- \
      -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
    wait_port 4222
  fi
  if ! jetstream_answers 4222; then
    log "the nats-server on 127.0.0.1:4222 answers without JetStream: restart it with -js (or stop it and run this again)"
    return 1
  fi
  log "nats-server (JetStream) is up on 127.0.0.1:4222; tests start private ones from $binary (NATS_SERVER_BIN)"
}

# The embedded start's e2e runs the first call exactly as `npm start` prints it: with curl.
ensure_curl() {
  if ! command -v curl >/dev/null 2>&1; then log "installing curl"; apt_install curl; fi
}

# The console's browser tests (playwright-core, which downloads no browser) drive Debian's chromium,
# found by CHROMIUM_BIN or on the PATH.
ensure_chromium() {
  if [ -n "${CHROMIUM_BIN:-}" ] && [ -x "$CHROMIUM_BIN" ]; then log "chromium: $CHROMIUM_BIN"; return 0; fi
  if ! command -v chromium >/dev/null 2>&1; then log "installing chromium"; apt_install --no-install-recommends chromium; fi
  log "chromium: $(command -v chromium)"
}

# The monitoring test checks the alert rules with promtool (Debian's prometheus package ships it;
# the package's server is not started in a container without systemd, and is not needed).
ensure_promtool() {
  if ! command -v promtool >/dev/null 2>&1; then log "installing prometheus (for promtool)"; apt_install --no-install-recommends prometheus; fi
  log "promtool: $(command -v promtool)"
}

ensure_postgres
ensure_nats
ensure_curl
ensure_promtool
ensure_chromium
