# shellcheck shell=bash
# readerctl's steps, for the scripts that run in the bluez-vm guest and drive `readerctl
# emulate` on hci0 from another adapter: start_emulator and stop_emulator; step and refused,
# which run a readerctl command and judge it (report.sh), never letting the test card's data
# through. The calling script sets `readerctl` (the binary) and `work` (a folder). Sourced.
# The test card's number (4111 1111 1111 1111) in any form a leak could take: seven digits
# in a row, BCD or ASCII hex with or without spaces; its name (DOE/JOHN), also as ASCII hex.
card_data='4111111|41 ?11 ?11 ?11|34 ?31 ?31 ?31 ?31 ?31 ?31 ?31|DOE/JOHN|DOE\\/JOHN|44 ?4F ?45 ?2F ?4A ?4F ?48 ?4E'

# shellcheck source=interrupt.sh
source "$(dirname "${BASH_SOURCE[0]}")/interrupt.sh"
# shellcheck source=report.sh
source "$(dirname "${BASH_SOURCE[0]}")/report.sh"

emulator=
stop_emulator() {
    [ -n "$emulator" ] || return 0
    interrupt "$emulator" "readerctl emulate" || true
    emulator=
    # Kept with the guest's logs (bluez-vm run's log folder), one session after another.
    [ -n "${BLUEZ_VM_LOG_DIR:-}" ] && { echo "=== $(date +%T)"; cat "$work/emulate.log"; } >>"$BLUEZ_VM_LOG_DIR/emulate.log"
    if grep -qiE -- "$card_data" "$work/emulate.log"; then
        fail "readerctl emulate: its log holds card data"
    fi
}
trap stop_emulator EXIT

# start_emulator SCENARIO [ARGS…]: serves the emulated reader on hci0 until stop_emulator.
start_emulator() {
    "$readerctl" emulate --adapter hci0 --scenario "$1" "${@:2}" >"$work/emulate.log" 2>&1 &
    emulator=$!
    for _ in $(seq 1 120); do
        grep -q '^serving ' "$work/emulate.log" && return 0
        kill -0 "$emulator" 2>/dev/null || { cat "$work/emulate.log"; echo "readerctl emulate exited"; exit 1; }
        sleep 0.25
    done
    cat "$work/emulate.log"
    echo "readerctl emulate did not start"
    exit 1
}

# step NAME EXPECTED-TEXT COMMAND…: runs COMMAND and checks its exit status and output,
# which must not hold the test card's data (card_data): a leak is reported without
# printing the output that holds it.
step() {
    local name=$1 expected=$2
    shift 2
    local status=0
    output=$("$@" 2>&1) || status=$?
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
    output=$("$@" 2>&1) || status=$?
    if ((status == 12)) && grep -q -- "$expected" <<<"$output"; then
        pass "readerctl $name"
    else
        fail "readerctl $name (exit $status, expected 12)"
        sed 's/^/    /' <<<"$output"
    fi
}
