# shellcheck shell=bash
# Waiting inside the bluez-vm guest without starting processes (each costs 0.1-0.4 s under
# TCG): sourced by the helpers in bin/. Needs /dev/fd.

exec {NAP_FD}<> <(:)
# nap SECONDS: sleeps with `read -t`.
nap() { read -rt "$1" -u "$NAP_FD" _ || true; }

# poll SECONDS COMMAND...: runs COMMAND until it succeeds, for at most SECONDS of wall
# clock (a check can itself take most of a second on a busy host).
poll() {
    local deadline=$((${EPOCHREALTIME/./} + $1 * 1000000))
    shift
    while :; do
        "$@" && return 0
        ((${EPOCHREALTIME/./} < deadline)) || return 1
        nap 0.05
    done
}
