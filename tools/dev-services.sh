#!/usr/bin/env bash
# Makes sure the servers Onceport's tests need are up on loopback: PostgreSQL (127.0.0.1:5432,
# trust auth for the postgres user) and a JetStream-enabled nats-server (127.0.0.1:4222), plus the
# nats-server binary that messaging tests start privately to kill and restart. Installs them from
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

ensure_postgres() {
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
  if ! psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1; then
    # A fresh Debian cluster asks for passwords over TCP; the tests connect as postgres without one.
    local hba="/etc/postgresql/$version/main/pg_hba.conf"
    log "allowing trust auth for loopback in $hba"
    as_root sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main reload
    sleep 1
  fi
  psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null
  log "PostgreSQL is up on 127.0.0.1:5432"
}

ensure_nats() {
  if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
    log "installing nats-server"; apt_install nats-server
  fi
  if ! port_open 4222; then
    log "starting nats-server with JetStream"
    as_root mkdir -p /var/lib/nats-server
    as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
      -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
    wait_port 4222
  fi
  log "nats-server (JetStream) is up on 127.0.0.1:4222"
}

ensure_postgres
ensure_nats
