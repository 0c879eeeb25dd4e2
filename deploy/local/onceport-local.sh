#!/usr/bin/env bash
# The Kubernetes topology on one machine: every Onceport service and the web console as separate
# processes, N replicas each, against the NATS JetStream and PostgreSQL of $NATS_URL and $DATABASE_URL.
# The processes run the compiled build (tools/build; the console with its page, as in its image),
# like the pods do. The console calls replica 0 of intake, authorization and reconciler unless
# ONCEPORT_INTAKE_URL, ONCEPORT_AUTHORIZATION_URL, ONCEPORT_RECONCILER_URL say otherwise.
#
#   deploy/local/onceport-local.sh start                    build, start every replica, wait until all are ready
#   deploy/local/onceport-local.sh start <app> <replica>    start one replica (e.g. after `kill`)
#   deploy/local/onceport-local.sh stop [<app> [<replica>]] SIGTERM, wait for a graceful exit; SIGKILL after the
#                                                           grace ("stopped (KILL after grace)", exit 2); exit 1 if
#                                                           a replica exited non-zero; statuses in $ONCEPORT_LOCAL_DIR/exits
#   deploy/local/onceport-local.sh kill <app> <replica> [SIGNAL]   default SIGKILL: a crash, for fault tests
#   deploy/local/onceport-local.sh status                   one line per replica; exit 0 only if all are ready
#   deploy/local/onceport-local.sh logs <app> <replica>
#
# Configuration (environment; the services' own variables pass through, see the top README):
#   ONCEPORT_LOCAL_DIR        state: pids/, logs/ (default: <repo>/tmp/local)
#   ONCEPORT_LOCAL_DIST       where the builds go (default: <repo>/dist)
#   ONCEPORT_LOCAL_APPS       default: intake authorization dispatcher reconciler console (those that exist)
#   ONCEPORT_LOCAL_REPLICAS   default 2
#   ONCEPORT_LOCAL_BASE_PORT  default 3000: replica r of app i listens on BASE + i + 100*r
#                             (intake 3001/3101, authorization 3002/3102, dispatcher 3003/3103, reconciler 3004/3104,
#                             console 3005/3105)
#   ONCEPORT_LOCAL_BUILD      1 (default): build before `start`; 0: use the existing build
#   ONCEPORT_LOCAL_ENV_FILE   a KEY=VALUE file sourced before starting (DATABASE_URL, NATS_URL, ONCEPORT_*)
#   ONCEPORT_LOCAL_TIMEOUT    seconds to wait for readiness (default 90)
#   ONCEPORT_LOCAL_GRACE      seconds a replica gets to exit after SIGTERM before SIGKILL (default 30)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ -n ${ONCEPORT_LOCAL_ENV_FILE:-} ]]; then set -a; source "$ONCEPORT_LOCAL_ENV_FILE"; set +a; fi
RUN_DIR=${ONCEPORT_LOCAL_DIR:-$ROOT/tmp/local}
DIST=${ONCEPORT_LOCAL_DIST:-$ROOT/dist}
REPLICAS=${ONCEPORT_LOCAL_REPLICAS:-2}
BASE_PORT=${ONCEPORT_LOCAL_BASE_PORT:-3000}
TIMEOUT=${ONCEPORT_LOCAL_TIMEOUT:-90}
GRACE=${ONCEPORT_LOCAL_GRACE:-30}
ALL_APPS=(intake authorization dispatcher reconciler console)

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
exit_file() { echo "$RUN_DIR/exits/$1-$2.exit"; }

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
  # The console's page beside its main.js, where the compiled console serves it from (as the Dockerfile does).
  if [[ " $* " == *" console "* ]]; then
    (cd "$ROOT" && SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register apps/console/scripts/build-web.ts "$DIST/console/web")
  fi
}

start_one() {
  local app=$1 r=$2 port pid pidfile exitfile
  if pid=$(pid_of "$app" "$r"); then echo "$app-$r already running (pid $pid)"; return; fi
  [[ -f $DIST/$app/main.js ]] || die "no build of $app in $DIST (run with ONCEPORT_LOCAL_BUILD=1)"
  port=$(port_of "$app" "$r")
  pidfile=$(pid_file "$app" "$r") exitfile=$(exit_file "$app" "$r")
  mkdir -p "$RUN_DIR/pids" "$RUN_DIR/logs" "$RUN_DIR/exits"
  rm -f "$pidfile" "$exitfile"
  # The replica ids name the process like a pod name would; NODE_PATH finds the workspace's
  # packages when the build lives outside it. A small bash parent waits for node and writes its
  # exit status (128+N when signal N ended it), like a pod's lastState.terminated.exitCode; the
  # pid file holds node's own pid, so signals go to the service, not to the parent.
  PORT=$port ONCEPORT_DISPATCHER_ID="dispatcher-$r" ONCEPORT_RECONCILER_ID="reconciler-$r" \
    ONCEPORT_INTAKE_URL=${ONCEPORT_INTAKE_URL:-http://127.0.0.1:$(port_of intake 0)} \
    ONCEPORT_AUTHORIZATION_URL=${ONCEPORT_AUTHORIZATION_URL:-http://127.0.0.1:$(port_of authorization 0)} \
    ONCEPORT_RECONCILER_URL=${ONCEPORT_RECONCILER_URL:-http://127.0.0.1:$(port_of reconciler 0)} \
    NODE_ENV=${NODE_ENV:-production} NODE_PATH=$ROOT/node_modules \
    nohup bash -c 'node --enable-source-maps "$1" & echo $! >"$2.tmp" && mv "$2.tmp" "$2"; wait $!; echo $? >"$3"' \
    onceport-local "$DIST/$app/main.js" "$pidfile" "$exitfile" </dev/null >>"$(log_file "$app" "$r")" 2>&1 &
  local deadline=$((SECONDS + 10))
  until [[ -f $pidfile ]]; do ((SECONDS < deadline)) || die "$app-$r: no pid after 10s"; sleep 0.05; done
  echo "$app-$r starting on :$port (pid $(<"$pidfile"), log $(log_file "$app" "$r"))"
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

# Stops one replica and prints "<app>-<r> stopped (<how>) exit <status>". Returns 2 when the
# grace ran out and it took a SIGKILL: that stop was not graceful, and the caller must know.
stop_one() {
  local app=$1 r=$2 signal=${3:-TERM} how=${3:-TERM} pid deadline status=? waited=0
  if ! pid=$(pid_of "$app" "$r"); then rm -f "$(pid_file "$app" "$r")"; return 0; fi
  kill "-$signal" "$pid" 2>/dev/null || true
  deadline=$((SECONDS + GRACE))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)) && [[ $how != "KILL after grace" && $signal != KILL ]]; then
      echo "$app-$r still running after ${GRACE}s: SIGKILL" >&2
      kill -KILL "$pid" 2>/dev/null || true
      how="KILL after grace"
    fi
    sleep 0.1
  done
  # The parent writes the status right after node is gone.
  while [[ ! -s $(exit_file "$app" "$r") ]] && ((waited < 50)); do sleep 0.1; waited=$((waited + 1)); done
  [[ -s $(exit_file "$app" "$r") ]] && status=$(<"$(exit_file "$app" "$r")")
  rm -f "$(pid_file "$app" "$r")"
  echo "$app-$r stopped ($how) exit $status"
  [[ $how == "KILL after grace" ]] && return 2
  return 0
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
    # In parallel: a graceful stop may take the whole grace period. Exit 2 if any replica needed
    # a SIGKILL after the grace, 1 if any exited non-zero after SIGTERM.
    pids=() code=0
    for target in "${list[@]}"; do stop_one "${target%:*}" "${target#*:}" & pids+=($!); done
    for pid in "${pids[@]+"${pids[@]}"}"; do wait "$pid" || code=2; done
    if ((code == 0)); then
      for target in "${list[@]}"; do
        file=$(exit_file "${target%:*}" "${target#*:}")
        [[ ! -s $file || $(<"$file") == 0 ]] || { echo "${target%:*}-${target#*:} exited $(<"$file") after SIGTERM" >&2; code=1; }
      done
    fi
    exit $code
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
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
    [[ -z $command || $command == help || $command == -h || $command == --help ]] || exit 64
    ;;
esac
