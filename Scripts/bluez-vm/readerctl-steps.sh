# shellcheck shell=bash
# readerctl's steps, for the scripts that run in the bluez-vm guest and drive `readerctl
# emulate` (on hci0, or on several adapters at once) from another adapter: start_emulator,
# start_emulator_on and stop_emulator; step (step_begin and step_end for steps side by side)
# and refused, which run a readerctl command and judge it (report.sh), never letting the
# test card's data through. The calling script sets `readerctl` (the binary) and `work` (a folder). Sourced.
# The test card's number (4111 1111 1111 1111) in any form a leak could take: seven digits
# in a row, BCD or ASCII hex with or without spaces; its name (DOE/JOHN), also as ASCII hex.
card_data='4111111|41 ?11 ?11 ?11|34 ?31 ?31 ?31 ?31 ?31 ?31 ?31|DOE/JOHN|DOE\\/JOHN|44 ?4F ?45 ?2F ?4A ?4F ?48 ?4E'

# shellcheck source=interrupt.sh
source "$(dirname "${BASH_SOURCE[0]}")/interrupt.sh"
# shellcheck source=report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

# The emulated readers being served: their pids, and each one's log.
emulator_pids=()
emulator_logs=()
stop_emulator() {
    local i log
    for i in "${!emulator_pids[@]}"; do
        interrupt "${emulator_pids[$i]}" "readerctl emulate" || true
        log=${emulator_logs[$i]}
        # Kept with the guest's logs (bluez-vm run's log folder), one session after another.
        [ -n "${BLUEZ_VM_LOG_DIR:-}" ] && { echo "=== $(date +%T) $(basename "$log" .log)"; cat "$log"; } >>"$BLUEZ_VM_LOG_DIR/emulate.log"
        if grep -qiE -- "$card_data" "$log"; then
            fail "readerctl emulate: its log holds card data"
        fi
    done
    emulator_pids=()
    emulator_logs=()
}
trap stop_emulator EXIT

# start_emulator SCENARIO [ARGS…]: serves the emulated reader on hci0 until stop_emulator.
start_emulator() {
    start_emulator_on hci0 "$@"
}

# start_emulator_on ADAPTER SCENARIO [ARGS…]: serves an emulated reader on ADAPTER until
# stop_emulator, beside any already served.
start_emulator_on() {
    local log="$work/emulate-$1.log" pid
    "$readerctl" emulate --adapter "$1" --scenario "$2" "${@:3}" >"$log" 2>&1 &
    pid=$!
    emulator_pids+=("$pid")
    emulator_logs+=("$log")
    for _ in $(seq 1 120); do
        grep -q '^serving ' "$log" && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "readerctl emulate on $1 exited"; exit 1; }
        sleep 0.25
    done
    cat "$log"
    echo "readerctl emulate on $1 did not start"
    exit 1
}

# How long a step's command may run, in seconds: many times the longest step's time on a
# busy machine (39 s). A command still running then is a hang: its threads' stacks are
# printed (gdb, from the host's /usr), then it is stopped and fails its step, rather than
# holding the guest until its own time limit. The watcher is one `sleep` that only waits:
# a watchdog that polls would spend the guest's CPU (a process start costs 0.1-0.4 s under
# TCG) and slow every step. A shell function (a check the suite defines) runs as it is.
step_time_limit=240
limited() {
    if declare -F "$1" >/dev/null; then
        "$@"
        return
    fi
    local status=0 pid watcher
    "$@" <&0 &
    pid=$!
    (
        # Each wait is a `sleep` that a TERM (the command finished) ends at once.
        sleeper=""
        trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
        pause() { sleep "$1" </dev/null >/dev/null 2>&1 & sleeper=$!; wait "$sleeper"; }
        pause "$step_time_limit"
        echo "still running after $step_time_limit s: stopped (a hang); its threads:"
        timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt' </dev/null 2>&1 |
            grep -E '^(Thread |#[0-9])' | cut -c1-240 || true
        kill -TERM "$pid" 2>/dev/null
        pause 10
        kill -KILL "$pid" 2>/dev/null
    ) &
    watcher=$!
    wait "$pid" || status=$?
    kill "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    return "$status"
}

# step NAME EXPECTED-TEXT COMMAND…: runs COMMAND and checks its exit status and output,
# which must not hold the test card's data (card_data): a leak is reported without
# printing the output that holds it.
step() {
    local name=$1 expected=$2
    shift 2
    local status=0
    output=$(limited "$@" 2>&1) || status=$?
    judge "$name" "$expected" "$status"
}

# step_begin ID COMMAND…: starts COMMAND in the background, beside other steps; step_end
# waits for it and judges it.
declare -A step_pids=()
step_begin() {
    local id=$1
    shift
    ( status=0; "$@" >"$work/step-$id.out" 2>&1 || status=$?; echo "$status" >"$work/step-$id.status" ) &
    step_pids[$id]=$!
}

# step_end ID NAME EXPECTED-TEXT: waits for the step begun as ID and judges it as step does;
# its output becomes the last step's.
step_end() {
    local id=$1
    wait "${step_pids[$id]}" || true
    output=$(cat "$work/step-$id.out")
    judge "$2" "$3" "$(cat "$work/step-$id.status" 2>/dev/null || echo 125)"
}

# judge NAME EXPECTED-TEXT STATUS: the verdict on a step whose output is in $output.
judge() {
    local name=$1 expected=$2 status=$3
    if grep -qiE -- "$card_data" <<<"$output"; then
        fail "readerctl $name: the output holds card data ($(grep -oiE -- "$card_data" <<<"$output" | head -1 | cut -c1-4)…)"
    elif ((status == 0)) && grep -q -- "$expected" <<<"$output"; then
        pass "readerctl $name"
    else
        fail "readerctl $name (exit $status)"
        sed 's/^/    /' <<<"$output"
    fi
}

# refused NAME EXPECTED-TEXT COMMAND…: COMMAND must fail with exit status 12 (the link is
# not secure) and say EXPECTED-TEXT.
refused() {
    local name=$1 expected=$2
    shift 2
    local status=0
    output=$(limited "$@" 2>&1) || status=$?
    if ((status == 12)) && grep -q -- "$expected" <<<"$output"; then
        pass "readerctl $name"
    else
        fail "readerctl $name (exit $status, expected 12)"
        sed 's/^/    /' <<<"$output"
    fi
}
