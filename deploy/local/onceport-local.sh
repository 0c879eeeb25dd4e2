#!/usr/bin/env bash
# The Kubernetes topology on one machine: every Onceport service as separate processes, N replicas
# each, against the NATS JetStream and PostgreSQL of $NATS_URL and $DATABASE_URL. The processes run
# the compiled build (tools/build), like the pods do.
#
#   deploy/local/onceport-local.sh start                    build, start every replica, wait until all are ready
#   deploy/local/onceport-local.sh start <app> <replica>    start one replica (e.g. after `kill`)
#   deploy/local/onceport-local.sh stop [<app> [<replica>]] SIGTERM, wait for a graceful exit (SIGKILL after the grace)
#   deploy/local/onceport-local.sh kill <app> <replica> [SIGNAL]   default SIGKILL: a crash, for fault tests
#   deploy/local/onceport-local.sh status                   one line per replica; exit 0 only if all are ready
#   deploy/local/onceport-local.sh logs <app> <replica>
#
# Configuration (environment; the services' own variables pass through, see the top README):
#   ONCEPORT_LOCAL_DIR        state: pids/, logs/ (default: <repo>/tmp/local)
#   ONCEPORT_LOCAL_DIST       where the builds go (default: <repo>/dist)
#   ONCEPORT_LOCAL_APPS       default: intake authorization dispatcher reconciler (those that exist)
#   ONCEPORT_LOCAL_REPLICAS   default 2
#   ONCEPORT_LOCAL_BASE_PORT  default 3000: replica r of app i listens on BASE + i + 100*r
#                             (intake 3001/3101, authorization 3002/3102, dispatcher 3003/3103, reconciler 3004/3104)
#   ONCEPORT_LOCAL_BUILD      1 (default): build before `start`; 0: use the existing build
#   ONCEPORT_LOCAL_ENV_FILE   a KEY=VALUE file sourced before starting (DATABASE_URL, NATS_URL, ONCEPORT_*)
#   ONCEPORT_LOCAL_TIMEOUT    seconds to wait for readiness (default 90) and for a graceful stop (default 30)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ -n ${ONCEPORT_LOCAL_ENV_FILE:-} ]]; then set -a; source "$ONCEPORT_LOCAL_ENV_FILE"; set +a; fi
RUN_DIR=${ONCEPORT_LOCAL_DIR:-$ROOT/tmp/local}
DIST=${ONCEPORT_LOCAL_DIST:-$ROOT/dist}
REPLICAS=${ONCEPORT_LOCAL_REPLICAS:-2}
BASE_PORT=${ONCEPORT_LOCAL_BASE_PORT:-3000}
TIMEOUT=${ONCEPORT_LOCAL_TIMEOUT:-90}
GRACE=${ONCEPORT_LOCAL_GRACE:-30}
ALL_APPS=(intake authorization dispatcher reconciler)

die() { echo "onceport-local: $*" >&2; exit 1; }

app_index() {
  local i
  for i in "${!ALL_APPS[@]}"; do [[ ${ALL_APPS[$i]} == "$1" ]] && { echo $((i + 1)); return; }; done
  die "unknown app '$1' (apps: ${ALL_APPS[*]})"
}

apps() {
  if [[ -n ${ONCEPORT_LOCAL_APPS:-} ]]; then echo "$ONCEPORT_LOCAL_APPS"; return; fi
  local app found=()
  # The reconciler joins once apps/reconciler exists.
  for app in "${ALL_APPS[@]}"; do [[ -f $ROOT/apps/$app/src/main.ts ]] && found+=("$app"); done
  echo "${found[*]}"
}

port_of() { echo $((BASE_PORT + $(app_index "$1") + 100 * $2)); }
pid_file() { echo "$RUN_DIR/pids/$1-$2.pid"; }
log_file() { echo "$RUN_DIR/logs/$1-$2.log"; }

pid_of() {
  local file pid
  file=$(pid_file "$1" "$2")
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# HTTP status of GET <path> on 127.0.0.1:<port>, or 000: bash's /dev/tcp, so no curl needed.
http_status() {
  local port=$1 path=$2 line
  line=$(timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3 && head -n1 <&3" 2>/dev/null) || { echo 000; return; }
  line=${line#HTTP/1.? }
  echo "${line:0:3}"
}

build() {
  [[ ${ONCEPORT_LOCAL_BUILD:-1} == 0 ]] && return
  echo "building $* into $DIST"
  (cd "$ROOT" && SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/build/cli.ts "$@" --out-root "$DIST")
}

start_one() {
  local app=$1 r=$2 port pid
  if pid=$(pid_of "$app" "$r"); then echo "$app-$r already running (pid $pid)"; return; fi
  [[ -f $DIST/$app/main.js ]] || die "no build of $app in $DIST (run with ONCEPORT_LOCAL_BUILD=1)"
  port=$(port_of "$app" "$r")
  mkdir -p "$RUN_DIR/pids" "$RUN_DIR/logs"
  # The replica ids name the process like a pod name would; NODE_PATH finds the workspace's
  # packages when the build lives outside it.
  PORT=$port ONCEPORT_DISPATCHER_ID="dispatcher-$r" ONCEPORT_RECONCILER_ID="reconciler-$r" \
    NODE_ENV=${NODE_ENV:-production} NODE_PATH=$ROOT/node_modules \
    nohup node --enable-source-maps "$DIST/$app/main.js" </dev/null >>"$(log_file "$app" "$r")" 2>&1 &
  echo $! >"$(pid_file "$app" "$r")"
  echo "$app-$r starting on :$port (pid $!, log $(log_file "$app" "$r"))"
}

wait_ready() {
  local deadline=$((SECONDS + TIMEOUT)) pending=("$@") next target app r
  while ((${#pending[@]} > 0)); do
    next=()
    for target in "${pending[@]}"; do
      app=${target%:*} r=${target#*:}
      if ! pid_of "$app" "$r" >/dev/null; then
        echo "$app-$r exited before it was ready; last lines of its log:" >&2
        tail -n 20 "$(log_file "$app" "$r")" >&2 || true
        return 1
      fi
      [[ $(http_status "$(port_of "$app" "$r")" /readyz) == 200 ]] || next+=("$target")
    done
    pending=("${next[@]+"${next[@]}"}")
    ((${#pending[@]} == 0)) && break
    ((SECONDS < deadline)) || { echo "not ready after ${TIMEOUT}s: ${pending[*]}" >&2; return 1; }
    sleep 0.3
  done
}

stop_one() {
  local app=$1 r=$2 signal=${3:-TERM} pid deadline
  if ! pid=$(pid_of "$app" "$r"); then rm -f "$(pid_file "$app" "$r")"; return; fi
  kill "-$signal" "$pid" 2>/dev/null || true
  deadline=$((SECONDS + GRACE))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      echo "$app-$r still running after ${GRACE}s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
  rm -f "$(pid_file "$app" "$r")"
  echo "$app-$r stopped ($signal)"
}

# <app> [<replica>] → "app:replica" targets; no app → every replica of every app.
targets() {
  local app r list=()
  if [[ -n ${1:-} ]]; then
    app_index "$1" >/dev/null
    if [[ -n ${2:-} ]]; then list+=("$1:$2"); else for ((r = 0; r < REPLICAS; r++)); do list+=("$1:$r"); done; fi
  else
    for app in $(apps); do for ((r = 0; r < REPLICAS; r++)); do list+=("$app:$r"); done; done
  fi
  echo "${list[*]}"
}

command=${1:-}
shift || true
case $command in
  start)
    read -r -a list <<<"$(targets "$@")"
    if [[ -z ${1:-} ]]; then read -r -a all <<<"$(apps)"; build "${all[@]}"; else [[ -f $DIST/$1/main.js ]] || build "$1"; fi
    for target in "${list[@]}"; do start_one "${target%:*}" "${target#*:}"; done
    wait_ready "${list[@]}"
    echo "ready: ${list[*]}"
    ;;
  stop)
    read -r -a list <<<"$(targets "$@")"
    # In parallel: a graceful stop may take the whole grace period.
    for target in "${list[@]}"; do stop_one "${target%:*}" "${target#*:}" & done
    wait
    ;;
  kill)
    [[ -n ${1:-} && -n ${2:-} ]] || die "usage: kill <app> <replica> [SIGNAL]"
    app_index "$1" >/dev/null
    stop_one "$1" "$2" "${3:-KILL}"
    ;;
  status)
    code=0
    printf '%-14s %-7s %-8s %-6s %-8s %s\n' APP REPLICA PID PORT STATE URL
    for target in $(targets); do
      app=${target%:*} r=${target#*:} port=$(port_of "$app" "$r")
      if pid=$(pid_of "$app" "$r"); then
        if [[ $(http_status "$port" /readyz) == 200 ]]; then state=ready
        elif [[ $(http_status "$port" /healthz) == 200 ]]; then state=live code=3
        else state=starting code=3; fi
      else pid=- state=down code=3; fi
      printf '%-14s %-7s %-8s %-6s %-8s %s\n' "$app" "$r" "$pid" "$port" "$state" "http://127.0.0.1:$port"
    done
    exit $code
    ;;
  logs)
    [[ -n ${1:-} && -n ${2:-} ]] || die "usage: logs <app> <replica>"
    tail -n "${LINES:-100}" "$(log_file "$1" "$2")"
    ;;
  *)
    sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    [[ -z $command || $command == help || $command == -h || $command == --help ]] || exit 64
    ;;
esac
