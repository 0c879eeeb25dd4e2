/**
 * The durable marker protocol (DESIGN.md §9): the one POSIX-sh program the gateway sends to a host.
 * It needs nothing on the host beyond `/bin/sh` and the POSIX utilities `mkdir`, `date`, `mv`,
 * `cat`, `wc`, `tr`, `dd`, `kill`, `sleep`, `id` and `find`.
 *
 * How it is sent. The exec request is always the fixed string `/bin/sh -s`: no argument ever
 * reaches the user's login shell. The program arrives on stdin, as one function definition
 * followed by its call (see `buildScript`):
 *
 *     onceport_main() {
 *     onceport_mode='run'                      # or 'probe'
 *     onceport_marker_dir='~/.onceport/markers' # or an absolute path
 *     onceport_execution_id='exe_01J…'
 *     onceport_max_output_bytes=1048576
 *     set -- '/usr/local/bin/migrate' '--to' 'it'\''s'   # the argv, each element single-quoted
 *     …MARKER_WRAPPER…
 *     }
 *     onceport_main
 *
 * `sh` parses a function definition whole before it runs any of it, so a script cut short by a
 * dropped connection is a syntax error that runs nothing, never a command with half its argv.
 * Inside single quotes every byte but `'` is literal (`;`, `|`, `$( )`, backticks, newlines), and
 * `'` is written `'\''`; the command is started with `exec "$@"`, so each element reaches it as
 * exactly one argv entry and none is interpreted by a shell.
 *
 * The marker directory. A leading `~/` is replaced by the login user's `$HOME` (the default is
 * `~/.onceport/markers`: `/tmp` is wiped by many reboots, and a wiped marker would read "never
 * started"). A run makes it with `mkdir -p` (mode 0700) and then refuses to go on, running nothing,
 * unless it is a real directory (not a symbolic link) owned by the login user and writable by
 * neither group nor others: otherwise another local user could have made it first, or could rename
 * a marker away, and the next probe would read "never started" for a command that ran.
 *
 * The marker is the directory `<marker_dir>/<execution_id>`, made with `mkdir` (which fails if it
 * exists: the host itself refuses a second start of the same execution id). It holds:
 *
 *     started   UTC start time, written before the command starts
 *     pid       the command's process id, while it may be running
 *     runner    the process id of the shell that waits for it and then writes `finished` and `exit`
 *     stdout    the command's standard output (in full; the gateway reads at most the cap)
 *     stderr    the command's standard error (likewise)
 *     finished  UTC time the command ended
 *     exit      its exit status, renamed into place last: present ⇔ the command completed
 *
 * The command runs in a background subshell with stdio on files and hangups ignored (like
 * `nohup`), so it finishes and records its status even when the SSH session drops.
 *
 * What it prints on stdout (the channel's stdout carries only the protocol; lines that do not
 * start with `onceport-marker ` are ignored, e.g. a noisy login profile):
 *
 *     onceport-marker error <what>         run: no marker could be made, nothing ran; <what> is
 *                                          no-home-directory | cannot-create-marker-dir |
 *                                          marker-dir-unsafe | cannot-create-marker
 *     onceport-marker refused already-started   run: the marker exists, this start ran nothing
 *     onceport-marker started              run: marker made, command started
 *     onceport-marker state absent|running|completed|unreadable [<why>]
 *     onceport-marker started-at <time>    onceport-marker finished-at <time>
 *     onceport-marker exit <status>
 *     onceport-marker stdout <bytes> <total>   followed by exactly <bytes> raw bytes
 *     onceport-marker stderr <bytes> <total>   likewise
 *     onceport-marker end                  the report is complete
 *
 * A run prints `started`, waits for the command, then the same report a probe prints. Probe
 * states: `absent` (the marker directory is there and holds no marker: never started, safe to
 * dispatch), `running` (the command or its runner alive, no exit yet), `completed` (with exit status and output),
 * `unreadable` (the marker cannot be trusted: the marker directory is missing, unsafe as above or
 * has no home to resolve against, the marker is not a directory, or it started and its command is
 * gone without an exit status).
 *
 * Why a missing marker directory is `unreadable`, not `absent`: a probe is only sent for an
 * execution that was dispatched, and a run makes the directory (`mkdir -p`) before its marker,
 * before the command. A dispatched execution with no directory is either a program that never
 * reached the host whole (nothing ran) or a marker store that was wiped or moved (it may have
 * run): the host cannot tell which, so a human must (needs_review), never a second dispatch.
 *
 * Markers are never removed by the gateway; prune those older than the tools' correlation window.
 * A marker_dir on a filesystem that survives reboots keeps the guarantee across reboots.
 */
/** `${…}` cannot be written inside the template below, so this shell expansion is put in from here. */
const AFTER_TILDE_SLASH = '${onceport_marker_dir#??}';

export const MARKER_WRAPPER = String.raw`umask 077
case "$onceport_marker_dir" in
'~/'*)
  case "$HOME" in
  /*) onceport_marker_dir="$HOME/${AFTER_TILDE_SLASH}" ;;
  *) onceport_marker_dir='' ;;
  esac
  ;;
esac
m="$onceport_marker_dir/$onceport_execution_id"

onceport_dir_safe() {
  [ ! -L "$onceport_marker_dir" ] && [ -d "$onceport_marker_dir" ] &&
    [ -n "$(find "$onceport_marker_dir" -prune -user "$(id -u)" ! -perm -020 ! -perm -002 -print 2>/dev/null)" ]
}

onceport_emit() {
  if [ -f "$2" ]; then onceport_total=$(wc -c <"$2" | tr -d ' '); else onceport_total=0; fi
  onceport_bytes=$onceport_total
  if [ "$onceport_bytes" -gt "$onceport_max_output_bytes" ]; then onceport_bytes=$onceport_max_output_bytes; fi
  echo "onceport-marker $1 $onceport_bytes $onceport_total"
  if [ "$onceport_bytes" -gt 0 ]; then dd if="$2" bs="$onceport_bytes" count=1 2>/dev/null; fi
}

# The command, or its runner still writing the exit status: a loaded host can take longer than
# the report's one-second second look between the command's end and the exit file.
onceport_alive() {
  { [ -f "$m/pid" ] && kill -0 "$(cat "$m/pid")" 2>/dev/null; } ||
    { [ -f "$m/runner" ] && kill -0 "$(cat "$m/runner")" 2>/dev/null; }
}

onceport_report() {
  if [ -z "$onceport_marker_dir" ]; then
    echo "onceport-marker state unreadable no-home-directory"
  elif [ ! -e "$onceport_marker_dir" ] && [ ! -L "$onceport_marker_dir" ]; then
    # A run makes the marker directory before its marker, so for a dispatched execution a missing
    # directory means the program never ran, or the markers were wiped or moved: not "absent".
    echo "onceport-marker state unreadable marker-dir-missing"
  elif ! onceport_dir_safe; then
    echo "onceport-marker state unreadable marker-dir-unsafe"
  elif [ ! -x "$onceport_marker_dir" ]; then
    echo "onceport-marker state unreadable marker-dir-not-searchable"
  elif [ ! -e "$m" ]; then
    echo "onceport-marker state absent"
  elif [ ! -d "$m" ]; then
    echo "onceport-marker state unreadable marker-is-not-a-directory"
  else
    # A start in progress (no pid yet), or a command that just ended and whose runner is
    # writing the exit status: look again after a moment before calling it interrupted.
    if [ ! -f "$m/exit" ] && ! onceport_alive; then sleep 1; fi
    if [ -f "$m/exit" ]; then
      echo "onceport-marker state completed"
      echo "onceport-marker started-at $(cat "$m/started" 2>/dev/null)"
      echo "onceport-marker finished-at $(cat "$m/finished" 2>/dev/null)"
      echo "onceport-marker exit $(cat "$m/exit")"
      onceport_emit stdout "$m/stdout"
      onceport_emit stderr "$m/stderr"
    elif onceport_alive; then
      echo "onceport-marker state running"
      echo "onceport-marker started-at $(cat "$m/started" 2>/dev/null)"
    else
      echo "onceport-marker state unreadable started-without-exit-status"
      echo "onceport-marker started-at $(cat "$m/started" 2>/dev/null)"
    fi
  fi
  echo "onceport-marker end"
}

case "$onceport_mode" in
run)
  if [ -z "$onceport_marker_dir" ]; then
    echo "onceport-marker error no-home-directory"
    return 0
  fi
  if ! mkdir -p "$onceport_marker_dir" 2>/dev/null; then
    echo "onceport-marker error cannot-create-marker-dir"
    return 0
  fi
  if ! onceport_dir_safe; then
    echo "onceport-marker error marker-dir-unsafe"
    return 0
  fi
  if ! mkdir "$m" 2>/dev/null; then
    if [ -d "$m" ]; then echo "onceport-marker refused already-started"; else echo "onceport-marker error cannot-create-marker"; fi
    return 0
  fi
  date -u +%Y-%m-%dT%H:%M:%SZ >"$m/started"
  (
    trap '' HUP
    (exec "$@") </dev/null >"$m/stdout" 2>"$m/stderr" &
    echo "$!" >"$m/pid"
    wait "$!"
    onceport_status=$?
    date -u +%Y-%m-%dT%H:%M:%SZ >"$m/finished"
    echo "$onceport_status" >"$m/exit.tmp" && mv "$m/exit.tmp" "$m/exit"
  ) </dev/null >/dev/null 2>&1 &
  echo "$!" >"$m/runner"
  echo "onceport-marker started"
  wait "$!"
  onceport_report
  ;;
probe)
  onceport_report
  ;;
*)
  echo "onceport-marker error unknown-mode"
  ;;
esac
`;
