# shellcheck shell=bash
# A step's verdict, for the scripts that run in the bluez-vm guest: `pass LINE` and
# `fail LINE` print ✔ or ✘ LINE with the time since the previous verdict (where a run's time
# goes), and count it in `passed` and `failed`; `summary NAME` prints the counts and
# succeeds only when nothing failed. Sourced.
passed=0
failed=0
verdict_at=${EPOCHREALTIME/./}

verdict() {
    local mark=$1 now=${EPOCHREALTIME/./} took
    shift
    took=$((now - verdict_at))
    verdict_at=$now
    printf '%s %s  (%d.%d s)\n' "$mark" "$*" $((took / 1000000)) $((took / 100000 % 10))
}
pass() { verdict ✔ "$@"; passed=$((passed + 1)); }
fail() { verdict ✘ "$@"; failed=$((failed + 1)); }
summary() {
    echo "$1: $passed passed, $failed failed"
    ((failed == 0))
}
